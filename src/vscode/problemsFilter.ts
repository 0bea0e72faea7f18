// Which failures go to the Problems panel. VS Code already shows a type error through its built-in
// TypeScript (`ts(2322)` on the same line) and a lint finding through the ESLint, Biome or oxc extension when
// it is installed: listing them again under our source doubles every entry. Test failures and tools
// without an extension of their own are what only we can show. The `fixUntilGreen.diagnostics`
// setting (`all`) lists everything. No `vscode` import: unit-tested.
import type { DiagnosticsMode } from '../core/settings';
import type { Failure, ParserId } from '../core/types';
import { failureHeadline } from '../core/verify/values';

/** What VS Code shows by itself in this window. */
export interface ShownElsewhere {
  /** The ESLint extension (dbaeumer.vscode-eslint) is installed. */
  eslintExtension: boolean;
  /** Biome's extension (biomejs.biome) is installed. */
  biomeExtension?: boolean;
  /** The oxc extension (oxc.oxc-vscode), which runs oxlint, is installed. */
  oxcExtension?: boolean;
}

/** Files VS Code's built-in TypeScript checks. */
const TS_FILE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i;

/** True when VS Code shows this failure by itself, so our Problems entry would repeat it. */
export function shownByVsCode(f: Failure, parser: ParserId | undefined, shown: ShownElsewhere): boolean {
  if (!f.file) return false;
  if (parser === 'tsc') return TS_FILE.test(f.file);
  if (parser === 'eslint') return shown.eslintExtension;
  if (parser === 'biome') return shown.biomeExtension === true;
  if (parser === 'oxlint') return shown.oxcExtension === true;
  return false;
}

/** The failures our Problems entries carry under `mode`. */
export function problemsToShow(failures: readonly Failure[], parsers: Readonly<Record<string, ParserId>>, mode: DiagnosticsMode, shown: ShownElsewhere): Failure[] {
  if (mode === 'all') return [...failures];
  return failures.filter((f) => !shownByVsCode(f, parsers[f.check], shown));
}

/** A failure as a Problems entry: the headline (the test's name and its values, `20 !== 180`) leads, the whole message follows. */
export function diagnosticMessage(f: Failure): string {
  const headline = `${f.check}: ${failureHeadline(f)}`;
  const rest = f.message.trim();
  return rest && !headline.endsWith(rest) ? `${headline}\n${rest}` : headline;
}
