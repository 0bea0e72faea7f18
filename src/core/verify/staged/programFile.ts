// Where the programs of ours that a check runs inside the project's own tools are found: the Jest
// test runner, the mocha hook plugin, the Vitest reporter (./jestRetry, ./mochaRetry, ./vitestRetry),
// the warm tsc and ESLint workers (./warmTsc, ./warmEslint), the pre-started runner
// (./preStarted) and the tsc shim Vitest's typecheck runs (./vitestTypecheck). They are plain JavaScript source files in ./programs, linted
// and type-checked with the rest; the build copies them to dist/programs (esbuild.mjs) and the .vsix
// ships them there.
//
// One relative path serves both layouts: from the sources (the unit tests, under tsx) this module's
// folder holds ./programs; in a bundle, esbuild defines `import.meta.dirname` as the bundle's own
// `__dirname` (dist/), which holds the copies.
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../atomicWrite';
import * as path from 'node:path';

/** The programs, by the file they ship as: every file of ./programs. */
export const PROGRAM_NAMES = ['jestRunner.cjs', 'mochaHooks.cjs', 'vitestReporter.mjs', 'preStartedRunner.mjs', 'warmEslintWorker.cjs', 'warmTscWorker.cjs', 'vitestTscShim.cjs'] as const;
export type ProgramName = (typeof PROGRAM_NAMES)[number];

/** The shipped file of one program, absolute. */
export function programFile(name: ProgramName): string {
  return path.join(import.meta.dirname, 'programs', name);
}

/**
 * Writes a program's text to `to` (a check's folder, where the program finds what it reads beside
 * it). Written, not copied: a copy would keep the shipped file's mode, and a read-only install would
 * leave a copy the next run could not overwrite.
 */
export function writeProgram(name: ProgramName, to: string): void {
  writeFileAtomic(to, readFileSync(programFile(name)), { durable: false });
}
