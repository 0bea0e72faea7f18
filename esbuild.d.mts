import type { BuildOptions } from 'esbuild';

/** The shell bundle's budget in bytes (issue 16). */
export const SHELL_BUDGET_BYTES: number;
/** The programs' source folder and their folder under dist/ (copied as they are). */
export const PROGRAMS: { from: string; to: string };
export const ENGINE_IMPORT: string;
export const ENGINE_ENTRY: string;
export const CLI_MODEL_ENTRY: string;
/** The Node bundles (shell, engine, CLI, CLI model commands, lazy chunks) with `overrides` applied to each. */
export function nodeTargets(overrides?: BuildOptions): (BuildOptions & { outfile: string })[];
