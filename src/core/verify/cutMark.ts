// The line that marks where a check's output was cut at the output limit (runner.ts `CappedOutput`):
// written in one place, recognised by the parsers (a section whose header was cut goes on after it)
// and by the identity (its byte count, and where the cut falls, move run to run).

/** The marker line for `bytes` bytes left out. */
export function cutMarkText(bytes: number): string {
  return `[... ${bytes} bytes of output cut by fix-until-green ...]`;
}

/** The marker anywhere in a text. */
export const CUT_MARK = /\[\.\.\. \d+ bytes of output cut by fix-until-green \.\.\.\]/;

/** Whether `line` is the marker line. */
export function isCutMark(line: string): boolean {
  return /^\s*\[\.\.\. \d+ bytes of output cut by fix-until-green \.\.\.\]\s*$/.test(line);
}
