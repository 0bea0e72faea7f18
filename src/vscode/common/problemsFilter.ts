// Which failures go to the Problems panel: every failure the run knows, unless an editor already
// shows it. VS Code's TypeScript (and the ESLint, Biome and oxc extensions) report only the files
// open in an editor, so a type error in a file nobody opened is ours to list, as a `$tsc` task's
// problem matcher lists the whole project; once the file is open and TypeScript shows the same error
// on the same line (`ts(2322)`), our entry would double it and goes. The `fixUntilGreen.diagnostics`
// setting (`all`) lists everything. No `vscode` import: unit-tested.
import type { DiagnosticsMode } from '../../core/settings';
import type { Failure } from '../../core/types';
import { failureHeadline } from '../../core/headline';

/** A diagnostic another source (TypeScript, an ESLint extension) shows for a file right now. */
export interface ShownDiagnostic {
  /** 1-based, as a failure's line. */
  line: number;
  /** The diagnostic's code as VS Code holds it: TypeScript's `2322`, ESLint's `no-unused-vars`. */
  code: string | number | undefined;
}

/** `TS2322` is TypeScript's `2322`; a rule id is itself. */
function sameCode(id: string, code: string | number): boolean {
  const c = String(code);
  return id === c || id === `TS${c}` || id.toLowerCase() === c.toLowerCase();
}

/** True when an editor already shows this failure: another source's diagnostic of its code on its line. */
export function shownByEditor(f: Failure, shown: readonly ShownDiagnostic[]): boolean {
  if (!f.file || !f.id || f.line === undefined) return false;
  return shown.some((d) => d.line === f.line && d.code !== undefined && sameCode(f.id!, d.code));
}

/** The failures our Problems entries carry under `mode`; `shownIn(file)` is what other sources show for that file. */
export function problemsToShow(failures: readonly Failure[], mode: DiagnosticsMode, shownIn: (file: string) => readonly ShownDiagnostic[]): Failure[] {
  if (mode === 'all') return [...failures];
  return failures.filter((f) => !f.file || !shownByEditor(f, shownIn(f.file)));
}

/** A failure as a Problems entry: the headline (the test's name and its values, `20 !== 180`) leads, the whole message follows. */
export function diagnosticMessage(f: Failure): string {
  const headline = `${f.check}: ${failureHeadline(f)}`;
  const rest = f.message.trim();
  return rest && !headline.endsWith(rest) ? `${headline}\n${rest}` : headline;
}
