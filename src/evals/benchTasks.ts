// Scenario folders (the `eval` format) as bench tasks (`bench --from-evals DIR…`). The bench takes its
// copies with `git worktree`, so each scenario becomes a repository of its own in the bench's storage
// with two commits: `project/` (the broken state) and the reference fix over it. The reference fix is
// `expected/` when the scenario has one; else, when the scenario expects `green`, what its own recorded
// replies leave (the scenario is run once, on a scratch copy, as `eval` runs it). A scenario with
// neither has no fix to measure and is dropped with `no-reference-fix`. The commits carry fixed names
// and dates, so the same scenario bytes give the same commit ids: the plan's id, the verdict cache and
// a resumed bench hold across runs and machines. The scenario folder itself is only read.
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { execa } from 'execa';
import type { Explanation, TaskCandidate } from '../core/bench/tasks';
import type { Scenario } from './evals';
import { findScenarioDirs, loadScenario, nearestNodeModules, runScenario, treeHash } from './evals';

/** The scenario's settings a bench task keeps: the variant chooses the model, the bench the limits. */
function taskSettings(s: Scenario): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s.settings)) if (k !== 'model' && !k.startsWith('model.')) out[k] = v;
  return out;
}

const FIXED = { GIT_AUTHOR_NAME: 'fix-until-green bench', GIT_AUTHOR_EMAIL: 'bench@fix-until-green.invalid', GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z', GIT_COMMITTER_NAME: 'fix-until-green bench', GIT_COMMITTER_EMAIL: 'bench@fix-until-green.invalid', GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };

async function gitIn(dir: string, args: string[]): Promise<string> {
  const r = await execa('git', ['-c', 'core.autocrlf=false', '-c', 'commit.gpgSign=false', '-c', 'core.hooksPath=/dev/null', ...args], { cwd: dir, env: FIXED, reject: false });
  if (r.exitCode !== 0) throw new Error(`git ${args[0]} in ${dir}: ${String(r.stderr).trim() || `exit ${r.exitCode}`}`);
  return String(r.stdout);
}

/** Copies `from` over `to`, the top folder's node_modules left out (the copy links the nearest one instead). */
function copyTree(from: string, to: string): void {
  cpSync(from, to, { recursive: true, filter: (src) => !(path.basename(src) === 'node_modules' && path.dirname(src) === from) });
}

/** The tree whose files differ from `project/`: `expected/`, or the scenario's own green run; undefined for none. */
async function referenceTree(s: Scenario, scratch: string): Promise<{ dir: string; how: string } | { dir?: undefined; why: string }> {
  const expected = path.join(s.dir, 'expected');
  if (existsSync(expected)) return { dir: expected, how: 'expected/' };
  if (s.expect.stopReason !== 'green') return { why: `the scenario has no expected/ and expects ${s.expect.stopReason}, not green: it names no fix` };
  const r = await runScenario(s, { keep: true, scratchDir: scratch });
  if (!r.pass || !r.scratchDir) return { why: `its own recorded replies did not go green: ${r.problem ?? 'no run'}` };
  return { dir: path.join(r.scratchDir, 'project'), how: 'its recorded replies' };
}

export interface EvalTasks {
  candidates: TaskCandidate[];
  /** Scenarios dropped before any check (no fix to measure). */
  dropped: Explanation[];
}

/** Builds (or reuses) each scenario's repository under `storageDir/sources/` and names its candidate. */
export async function evalCandidates(dirs: readonly string[], storageDir: string): Promise<EvalTasks> {
  const sources = path.join(storageDir, 'sources');
  mkdirSync(sources, { recursive: true });
  const candidates: TaskCandidate[] = [];
  const dropped: Explanation[] = [];
  for (const dir of findScenarioDirs(dirs)) {
    const s = loadScenario(dir);
    const id = `eval-${s.name.replace(/[^\w.-]/g, '_')}`;
    const repo = path.join(sources, `${id}-${treeHash(s.dir).slice(0, 12)}`);
    const subject = s.description ?? `scenario ${s.name}`;
    if (!existsSync(path.join(repo, '.git'))) {
      const building = `${repo}.${process.pid}.tmp`;
      rmSync(building, { recursive: true, force: true });
      mkdirSync(building, { recursive: true });
      try {
        const ref = await referenceTree(s, building);
        if (ref.dir === undefined) {
          dropped.push({ commit: id, subject, kept: false, reason: 'no-reference-fix', detail: ref.why });
          continue;
        }
        const work = path.join(building, 'repo');
        copyTree(s.project, work);
        await gitIn(work, ['init', '-q', '-b', 'bench']);
        await gitIn(work, ['add', '-A']);
        await gitIn(work, ['commit', '-q', '--allow-empty', '-m', `scenario ${s.name}: project/`]);
        copyTree(ref.dir, work);
        await gitIn(work, ['add', '-A']);
        await gitIn(work, ['commit', '-q', '--allow-empty', '-m', `scenario ${s.name}: the fix (${ref.how})`]);
        // The copies reach the tools the scenario's run would: the nearest node_modules, linked, never committed.
        writeFileSync(path.join(work, '.git', 'info', 'exclude'), 'node_modules\n');
        renameSync(work, repo);
      } finally {
        rmSync(building, { recursive: true, force: true });
      }
    }
    const nm = nearestNodeModules(s.project);
    if (nm && !existsSync(path.join(repo, 'node_modules'))) symlinkSync(nm, path.join(repo, 'node_modules'), 'dir');
    const commit = (await gitIn(repo, ['rev-parse', 'HEAD'])).trim();
    const parent = (await gitIn(repo, ['rev-parse', 'HEAD^'])).trim();
    const referenceFiles = (await gitIn(repo, ['-c', 'core.quotePath=false', 'diff', '--name-only', '--no-renames', '-z', parent, commit, '--'])).split('\0').filter((p) => p !== '');
    if (referenceFiles.length === 0) {
      dropped.push({ commit: id, subject, kept: false, reason: 'no-reference-fix', detail: 'the fix changes no file of project/' });
      continue;
    }
    candidates.push({ id, repo, commit, parent, subject, testFiles: [], referenceFiles, settings: taskSettings(s), origin: `eval ${path.relative(process.cwd(), s.dir) || s.dir}` });
  }
  return { candidates, dropped };
}

