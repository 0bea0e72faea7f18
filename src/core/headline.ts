// A failure in a few words, from what the failure carries: its name and the values the verifier read
// (Failure.values), else the first line of its message. Pure and small: the extension's shell
// headlines failures with it, without the values reader (verify/values.ts, the engine's).
import type { Failure } from './types';

/** The runner's error class before a message (`AssertionError [ERR_ASSERTION]: `), not worth a headline's room. */
export const ERROR_HEAD = /^(?:AssertionError(?: \[\w+\])?|Error): /;

/** A failure's name (test title, rule, code, else file:line or check) and `values`, else its message's first line. */
export function headlineWith(f: Failure, values: string | undefined): string {
  const name = f.id ?? (f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : f.check);
  const first = f.message.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  const what = values ?? first.replace(ERROR_HEAD, '');
  const short = what.length > 100 ? `${what.slice(0, 99)}…` : what;
  return short ? `${name}: ${short}` : name;
}

/** The headline of a failure the verifier read (a failure of an older trace has its message's first line). */
export function failureHeadline(f: Failure): string {
  return headlineWith(f, f.values?.headline);
}

/** The failure a sentence names: the first whose values were read, else the first. */
export function tellingFailure(failures: readonly Failure[]): Failure {
  return failures.find((f) => f.values !== undefined) ?? failures[0]!;
}
