// Which checks write files as they run (a `pretest` build that deletes and rebuilds `build/`, `tsc`
// emitting, `tsc --build`, coverage output): another check reading those files at the same time sees
// them half written or gone, so the verifier runs such checks first, one at a time.
import * as path from 'node:path';
import type { CheckSpec } from '../types';
import type { CoverageFolders } from './coverageFolders';
import { coverageFolders } from './coverageFolders';
import { mayReadFolders } from './coverageReaders';
import { resolveScript, scriptsIn, splitChain } from './infer';
import { tscWritesNothing } from './tscEmit';

const scriptsOrNone = (cwd: string): Record<string, string> => scriptsIn(cwd) ?? {};

/** Builders, cleaners and copiers, as a step of a script runs them (wrappers taken off). */
const WRITER = /^(?:\S*\/)?(?:rimraf|del-cli|del|rm|mkdirp|mkdir|cp|mv|shx|copyfiles|cpy|esbuild|rollup|webpack|tsup|unbuild|babel|swc|ncc|vite\s+build|gts\s+clean)(?:\s|$)/;
/** Coverage tools write their report (coverage/, .nyc_output/) as the tests run. */
const COVERAGE = /(?:^|[\s/])(?:c8|nyc)(?:\s|$)|--coverage\b/;

/** What a check's command writes as it runs: why, and when its only writing is a coverage report, that report's folders (./coverageFolders). */
export interface Writing {
  why: string;
  /** Set when the command's only writing is coverage: the folders, or why they cannot be told. */
  coverage?: CoverageFolders;
}

/** Why a check's command writes files as it runs (a build, a clean, emitting tsc, coverage), or undefined when it writes none. */
export function writesFiles(command: string, cwd: string): string | undefined {
  return writing(command, cwd)?.why;
}

/**
 * What a check's command writes as it runs, or undefined when it writes nothing. A chain (its
 * scripts, their pre/post scripts) writes what any step writes: a build or a clean anywhere in it
 * is named first, and leaves no coverage folders (the check runs alone whatever they are).
 */
export function writing(command: string, cwd: string): Writing | undefined {
  const scripts: Record<string, string> = { ...scriptsOrNone(cwd), '\0command': command };
  const steps = resolveScript(scripts, '\0command');
  for (const s of steps) {
    const where = s.script !== undefined && s.script !== '\0command' ? ` (scripts.${s.script})` : '';
    if (/^(?:\S*\/)?tsc(?:\s|$)/.test(s.command) && !tscWritesNothing(s.command, cwd)) return { why: `\`${s.command}\`${where} writes its build output` };
    if (WRITER.test(s.command)) return { why: `\`${s.command}\`${where} writes files` };
  }
  const bodies = [command, ...new Set(steps.map((s) => s.script).filter((n): n is string => n !== undefined && n !== '\0command'))].map((n) => scripts[n] ?? n);
  // Every step as written (c8 and nyc are wrappers the steps above have taken off): each that runs a
  // coverage tool, by a flag or by its runner's config (Jest's collectCoverage), names its folders.
  const folders: string[] = [];
  let why: string | undefined;
  for (const part of bodies.flatMap((body) => splitChain(body))) {
    const f = coverageFolders(part, cwd) ?? (COVERAGE.test(part) ? { unknown: `where \`${part}\` writes its coverage is not known` } : undefined);
    if (f === undefined) continue;
    why ??= `\`${part}\` writes its coverage report`;
    if ('unknown' in f) return { why, coverage: f };
    folders.push(...f.folders);
  }
  return why !== undefined ? { why, coverage: { folders: [...new Set(folders)] } } : undefined;
}

/** Which checks of a pass run alone, before the others, and what to say of each check that writes. */
export interface WriterPlan {
  alone: Set<number>;
  /** The checks whose only writing is a coverage report no other check reads: they run beside the others, and so may their chains' rests (./chainRun). */
  beside: Set<string>;
  /** One line per check that writes: alone and why, or beside the others and why that is safe. */
  notes: string[];
}

/**
 * Checks that write run alone, before the others; one whose only writing is a coverage report runs
 * beside them when its folders are known and every other check that runs meanwhile provably reads
 * apart from them (./coverageReaders) and writes no report into them. Anything unproven: alone.
 */
export function planWriters(checks: readonly CheckSpec[], root: string): WriterPlan {
  const plan: WriterPlan = { alone: new Set(), beside: new Set(), notes: [] };
  if (checks.length < 2) return plan;
  const cwdOf = (c: CheckSpec): string => path.resolve(root, c.cwd ?? '.');
  const writes = checks.map((c) => writing(c.command, cwdOf(c)));
  for (const [i, c] of checks.entries()) {
    const w = writes[i];
    if (w === undefined) continue;
    const folders = w.coverage !== undefined && 'folders' in w.coverage ? w.coverage.folders : undefined;
    const conflict = w.coverage === undefined ? undefined : folders === undefined ? (w.coverage as { unknown: string }).unknown : besideConflict(i, folders, checks, writes, cwdOf);
    const shown = folders?.map((f) => path.relative(root, f) || '.').join(', ');
    if (w.coverage !== undefined && conflict === undefined) {
      plan.notes.push(`check ${c.name}: runs beside the others: its only writing is its coverage report (${shown}), which no other check reads`);
      plan.beside.add(c.name);
      continue;
    }
    plan.alone.add(i);
    plan.notes.push(`check ${c.name}: runs before the others, not beside them: ${w.why}${conflict !== undefined ? `${shown !== undefined ? ` (${shown})` : ''}, and ${conflict}` : ''}`);
  }
  return plan;
}

/** Why a coverage check writing `folders` may not run beside the others, or undefined when none reads or writes there meanwhile. */
function besideConflict(i: number, folders: readonly string[], checks: readonly CheckSpec[], writes: readonly (Writing | undefined)[], cwdOf: (c: CheckSpec) => string): string | undefined {
  for (const [j, other] of checks.entries()) {
    const w = writes[j];
    // A check that writes other than coverage runs alone, never meanwhile.
    if (j === i || (w !== undefined && w.coverage === undefined)) continue;
    const theirs = w?.coverage !== undefined && 'folders' in w.coverage ? w.coverage.folders : [];
    const shared = theirs.find((f) => folders.some((g) => f === g || !path.relative(g, f).startsWith('..') || !path.relative(f, g).startsWith('..')));
    if (shared !== undefined) return `check ${other.name} writes its coverage into ${shared} too`;
    const why = mayReadFolders(other.command, cwdOf(other), folders);
    if (why !== undefined) return `check ${other.name} may read it as it is written: ${why}`;
  }
  return undefined;
}
