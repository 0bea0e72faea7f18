// Which checks write files as they run (a `pretest` build that deletes and rebuilds `build/`, `tsc`
// emitting, `tsc --build`, coverage output): another check reading those files at the same time sees
// them half written or gone, so the verifier runs such checks first, one at a time.
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { readTextIfPresent } from '../fileText';
import { resolveScript, scriptsIn } from './infer';

const scriptsOrNone = (cwd: string): Record<string, string> => scriptsIn(cwd) ?? {};

/** Builders, cleaners and copiers, as a step of a script runs them (wrappers taken off). */
const WRITER = /^(?:\S*\/)?(?:rimraf|del-cli|del|rm|mkdirp|mkdir|cp|mv|shx|copyfiles|cpy|esbuild|rollup|webpack|tsup|unbuild|babel|swc|ncc|vite\s+build|gts\s+clean)(?:\s|$)/;
/** Coverage tools write their report (coverage/, .nyc_output/) as the tests run. */
const COVERAGE = /(?:^|[\s/])(?:c8|nyc)(?:\s|$)|--coverage\b/;

/** Why a check's command writes files as it runs (a build, a clean, emitting tsc, coverage), or undefined when it writes none. */
export function writesFiles(command: string, cwd: string): string | undefined {
  const scripts: Record<string, string> = { ...scriptsOrNone(cwd), '\0command': command };
  const steps = resolveScript(scripts, '\0command');
  for (const s of steps) {
    const where = s.script !== undefined && s.script !== '\0command' ? ` (scripts.${s.script})` : '';
    if (/^(?:\S*\/)?tsc(?:\s|$)/.test(s.command) && (/(?:^|\s)(?:-b|--build)(?:\s|$)/.test(s.command) || !(/--noEmit\b(?!\s+false\b)/.test(s.command) || configNoEmit(s.command, cwd)))) return `\`${s.command}\`${where} writes its build output`;
    if (WRITER.test(s.command)) return `\`${s.command}\`${where} writes files`;
  }
  const bodies = [command, ...new Set(steps.map((s) => s.script).filter((n): n is string => n !== undefined && n !== '\0command'))].map((n) => scripts[n] ?? n);
  const coverage = bodies.find((b) => COVERAGE.test(b));
  return coverage !== undefined ? `\`${coverage}\` writes its coverage report` : undefined;
}

/**
 * Whether the tsconfig a `tsc` call reads (`-p`/`--project`, else the folder's tsconfig.json) sets
 * `noEmit` itself: then the call writes nothing (`tsc -p tsconfig.json` as a project's type check)
 * and runs beside the other checks. A setting only inherited through `extends` is not followed: the
 * call is then taken to write, which only costs it running alone.
 */
function configNoEmit(command: string, cwd: string): boolean {
  if (/(?:^|\s)--noEmit\s+false\b/.test(command)) return false;
  const t = command.trim().split(/\s+/);
  const i = t.findIndex((a) => a === '-p' || a === '--project');
  const named = i >= 0 ? t[i + 1] : undefined;
  let file = path.resolve(cwd, named ?? 'tsconfig.json');
  if (named !== undefined && !/\.json$/i.test(named)) file = path.join(file, 'tsconfig.json');
  const text = readTextIfPresent(file, ['ENOTDIR', 'EISDIR']);
  if (text === undefined) return false;
  const config = parse(text, [], { allowTrailingComma: true }) as { compilerOptions?: { noEmit?: unknown } } | undefined;
  return config?.compilerOptions?.noEmit === true;
}
