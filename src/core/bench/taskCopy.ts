// A task's own copy: a detached git worktree outside the user's folder (in the bench's storage), so a
// check or a model's edit never reaches the user's files. `git worktree add` writes only under the
// repository's .git/worktrees (neither the user's working tree nor its index), and each copy is
// removed with `git worktree remove` plus a prune, whatever ended it (a stop, an error, Ctrl-C).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as semver from 'semver';
import { git, showFile } from './git';

/** git serialises worktree bookkeeping with a lock file: one add or remove at a time in this process. */
let queue: Promise<unknown> = Promise.resolve();
function serial<T>(work: () => Promise<T>): Promise<T> {
  const next = queue.then(work, work);
  queue = next.catch(() => undefined);
  return next;
}

export interface TaskCopy {
  dir: string;
  remove(): Promise<void>;
}

/** The dependency fields a commit's package.json can ask to be installed. */
const FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

/**
 * Why the copy cannot run the project's tools with the user's node_modules, or undefined. The rule:
 * every package the commit's package.json asks for is installed in a version its range accepts (a
 * bumped range that the installed version still satisfies, the usual history of a project, needs
 * no install). A spec that is no semver range (git, a URL, a tarball) must equal the user's own
 * package.json's; `workspace:`, `file:` and `link:` name folders of the project; a missing optional
 * dependency is allowed, as npm allows it.
 */
export function installProblem(root: string, parentPackageJson: Buffer | undefined): string | undefined {
  if (parentPackageJson === undefined) return undefined;
  const wanted = readDeps(parentPackageJson.toString('utf8'));
  // A package.json that does not parse cannot be compared: its tools would not install either.
  if (wanted === undefined) return 'install needed: package.json at this commit does not parse';
  if (wanted.length === 0) return undefined;
  if (!existsSync(path.join(root, 'node_modules'))) return 'install needed: the project has dependencies and no node_modules to link';
  const own = existsSync(path.join(root, 'package.json')) ? readDeps(readFileSync(path.join(root, 'package.json'), 'utf8')) ?? [] : [];
  for (const d of wanted) {
    const problem = depProblem(root, d, own.find((o) => o.name === d.name)?.spec);
    if (problem !== undefined) return `install needed: package.json at this commit asks for ${d.name}@${d.spec}, ${problem}`;
  }
  return undefined;
}

interface Dep {
  name: string;
  spec: string;
  optional: boolean;
}

function readDeps(text: string): Dep[] | undefined {
  let p: Record<string, unknown>;
  try {
    p = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const out: Dep[] = [];
  for (const field of FIELDS) {
    const map = p[field];
    if (map === null || typeof map !== 'object') continue;
    for (const [name, spec] of Object.entries(map as Record<string, unknown>)) {
      if (typeof spec === 'string') out.push({ name, spec, optional: field === 'optionalDependencies' });
    }
  }
  return out;
}

/** Why the installed copy of `d` does not serve the commit, or undefined. */
function depProblem(root: string, d: Dep, ownSpec: string | undefined): string | undefined {
  if (/^(workspace|file|link|portal):/.test(d.spec)) return undefined;
  // `npm:other@range`: an alias installed under its own name, judged by the aliased range.
  const alias = /^npm:(?:@[^/]+\/)?[^@]+@(.+)$/.exec(d.spec);
  const range = alias ? alias[1]! : d.spec;
  const installed = installedVersion(root, d.name);
  if (installed === undefined) return d.optional ? undefined : 'which is not installed';
  if (semver.validRange(range) === null) return d.spec === ownSpec ? undefined : `which is not a version range (installed: ${ownSpec ?? 'none'})`;
  return semver.satisfies(installed, range, { includePrerelease: true }) ? undefined : `and ${installed} is installed`;
}

function installedVersion(root: string, name: string): string | undefined {
  try {
    const v = (JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A worktree of `root`'s repository at `rev`, under `parent`, with the user's node_modules linked (the
 * caller checked installProblem first).
 */
export async function addTaskCopy(root: string, parent: string, rev: string, label: string): Promise<TaskCopy> {
  mkdirSync(parent, { recursive: true });
  // The owner's pid first: another bench on the same storage (a second shard on this machine) leaves this copy alone while we live.
  const dir = path.join(parent, `${process.pid}-${label.replace(/[^\w.-]/g, '_')}-${randomUUID().slice(0, 8)}`);
  await serial(() => git(root, ['worktree', 'add', '--detach', '--quiet', dir, rev]));
  const nm = path.join(root, 'node_modules');
  if (existsSync(nm) && !existsSync(path.join(dir, 'node_modules'))) symlinkSync(nm, path.join(dir, 'node_modules'), 'dir');
  let removed = false;
  return {
    dir,
    remove: async () => {
      if (removed) return;
      removed = true;
      await removeCopy(root, dir);
    },
  };
}

/**
 * The repository a copy is a worktree of (its `.git` file names its admin folder, whose `commondir`
 * leads to the repository's .git), or undefined when that cannot be read. A tasks file's entry may
 * name another repository than the bench's: its copies are that repository's worktrees.
 */
function ownerOf(dir: string): string | undefined {
  try {
    const admin = /^gitdir: (.+)$/m.exec(readFileSync(path.join(dir, '.git'), 'utf8'))?.[1]?.trim();
    if (admin === undefined) return undefined;
    const adminDir = path.resolve(dir, admin);
    const common = path.resolve(adminDir, readFileSync(path.join(adminDir, 'commondir'), 'utf8').trim());
    return path.basename(common) === '.git' ? path.dirname(common) : common;
  } catch {
    // A copy half removed (no .git file) or not a worktree: the caller's repository is the best guess.
    return undefined;
  }
}

async function removeCopy(root: string, dir: string): Promise<void> {
  await serial(async () => {
    const owner = ownerOf(dir) ?? root;
    await git(owner, ['worktree', 'remove', '--force', '--force', dir], { allowFail: true });
    rmSync(dir, { recursive: true, force: true });
    await git(owner, ['worktree', 'prune'], { allowFail: true });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Copies a killed bench left under `parent` (a process gone before its `finally`), removed at the next
 * start: those whose owner is no longer alive, and with `own` this process's too (the net at the end).
 */
export async function removeStaleCopies(root: string, parent: string, own = false): Promise<number> {
  if (!existsSync(parent)) return 0;
  let n = 0;
  for (const name of readdirSync(parent)) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1] ?? NaN);
    const stale = Number.isNaN(pid) || (pid === process.pid ? own : !alive(pid));
    if (!stale) continue;
    await removeCopy(root, path.join(parent, name));
    n++;
  }
  return n;
}

/** Puts each of `files` as it is at `rev` (a file absent there is deleted), in the copy only. */
export async function putFilesAt(root: string, dir: string, rev: string, files: readonly string[]): Promise<void> {
  for (const f of files) {
    const bytes = await showFile(root, rev, f);
    const abs = path.join(dir, f);
    if (bytes === undefined) rmSync(abs, { force: true });
    else {
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, bytes);
    }
  }
}
