// Which failures go to the Problems panel: every failure the run knows, unless an editor already
// shows it. VS Code's TypeScript (and the ESLint, Biome and oxc extensions) report only the files
// open in an editor, so a type error in a file nobody opened is ours to list, as a `$tsc` task's
// problem matcher lists the whole project; once the file is open and TypeScript shows the same error
// on the same line (`ts(2322)`), our entry would double it and goes. The `fixUntilGreen.diagnostics`
// setting (`all`) lists everything. No `vscode` import: unit-tested.
import type { DiagnosticsMode } from '../../core/settings';
import type { Failure } from '../../core/types';
import { ERROR_HEAD, failureHeadline } from '../../core/headline';

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

/**
 * A failure as a Problems entry: the headline (the test's name and its values, `20 !== 180`) leads.
 * A failed assertion whose values were read follows with which value is which (`expected 180, got
 * 20`), not the runner's diff legend, caret and stack (the entry has the location); any other
 * failure follows with its whole message.
 */
export function diagnosticMessage(f: Failure): string {
  const headline = `${f.check}: ${failureHeadline(f)}`;
  if (f.values) return `${headline}\nexpected ${oneLine(f.values.expected)}, got ${oneLine(f.values.actual)}`;
  // The message's first line is in the headline already (as `failureHeadline` words it): the rest follows.
  const [first = '', ...more] = f.message.trim().split('\n');
  const rest = headline.endsWith(first.trim().replace(ERROR_HEAD, '')) ? more.join('\n').replace(/^(?:[ \t]*\n)+/, '').trimEnd() : f.message.trim();
  return rest ? `${headline}\n${rest}` : headline;
}

/** A value on one line, at most 200 characters: an object's lines joined. */
function oneLine(v: string): string {
  const flat = v.split('\n').map((l) => l.trim()).filter((l) => l !== '').join(' ');
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}
