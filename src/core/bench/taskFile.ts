// Tasks named by hand in a JSON file (`bench --tasks FILE`), for the fixes the history scan cannot pick
// out by itself (tests that are not under the test globs, a fix spread over commits, a fix that needs
// words). Each entry names a revision of the repository and which of its files are the tests:
//   {"tasks": [{"rev": "a1b2c3d", "files": ["test/parse.test.ts"], "instruction": "keep the API",
//               "base": "a1b2c3d~3", "id": "parse-dates"}]}
// The broken state is `base` (default: the first parent of `rev`) with `files` as they are at `rev`;
// the reference fix is every other file that differs between `base` and `rev`. Every problem is named
// with the entry it is in, before any check runs.
//
// An entry's `repo` points at another local git repository (absolute, or relative to the tasks file):
// its revisions are resolved there and its tasks run in copies of that repository (worktrees in its
// own .git, removed after), never touching its working tree or index. A URL is refused: the bench
// works offline and fetches nothing; clone it first and give the clone's path.
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parse, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { git } from './git';
import type { TaskCandidate } from './tasks';

export class TaskFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskFileError';
  }
}

interface Entry {
  /** Another repository's path as written (resolved against the tasks file in taskFileCandidates). */
  repo?: string;
  rev: string;
  files: string[];
  base?: string;
  instruction?: string;
  id?: string;
}

const KEYS = new Set(['repo', 'rev', 'files', 'base', 'instruction', 'id']);

/** `https://…`, `ssh://…`, `file://…`, `git@host:path`, `host.tld:path` (scp-like): a remote, which the bench never fetches. */
function isUrl(repo: string): boolean {
  return /^[a-z][\w+.-]*:\/\//i.test(repo) || /^[\w.-]+@[\w.-]+:/.test(repo) || /^[\w-]+(\.[\w-]+)+:(?!\/\/)/.test(repo);
}

function entryOf(v: unknown, where: string): Entry {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new TaskFileError(`${where} must be an object {"rev", "files", "instruction"?}`);
  const o = v as Record<string, unknown>;
  const unknownKey = Object.keys(o).find((k) => !KEYS.has(k));
  if (unknownKey !== undefined) throw new TaskFileError(`${where}: unknown key "${unknownKey}" (known: ${[...KEYS].join(', ')})`);
  if (typeof o.rev !== 'string' || o.rev.trim() === '') throw new TaskFileError(`${where}: "rev" must name a revision (a commit, a tag, HEAD~2)`);
  if (!Array.isArray(o.files) || o.files.some((f) => typeof f !== 'string' || f.trim() === '')) throw new TaskFileError(`${where}: "files" must be an array of the paths of the task's test files (repository-relative)`);
  const files = (o.files as string[]).map((f) => f.trim().replace(/^\.\//, ''));
  const bad = files.find((f) => f.startsWith('/') || f.split('/').includes('..'));
  if (bad !== undefined) throw new TaskFileError(`${where}: "files": "${bad}" must be a path inside the repository`);
  for (const k of ['repo', 'base', 'instruction', 'id'] as const) if (o[k] !== undefined && (typeof o[k] !== 'string' || (o[k] as string).trim() === '')) throw new TaskFileError(`${where}: "${k}" must be a non-empty string`);
  if (typeof o.id === 'string' && !/^[\w.-]+$/.test(o.id)) throw new TaskFileError(`${where}: "id" "${o.id}" may hold only letters, digits, "_", "." and "-"`);
  if (typeof o.repo === 'string' && isUrl(o.repo.trim())) throw new TaskFileError(`${where}: "repo" "${o.repo.trim()}" is a URL: the bench works offline and fetches nothing; clone it (git clone ${o.repo.trim()} DIR) and give the clone's path`);
  return { rev: o.rev.trim(), files, ...(typeof o.repo === 'string' ? { repo: o.repo.trim() } : {}), ...(typeof o.base === 'string' ? { base: o.base.trim() } : {}), ...(typeof o.instruction === 'string' ? { instruction: o.instruction.trim() } : {}), ...(typeof o.id === 'string' ? { id: o.id } : {}) };
}

/** Reads and checks a tasks file's entries (no git yet). */
export function readTaskFile(file: string): Entry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new TaskFileError(`--tasks ${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const errors: ParseError[] = [];
  const data: unknown = parse(text, errors, { allowTrailingComma: true });
  if (errors.length > 0) throw new TaskFileError(`--tasks ${file} is not valid JSON: ${printParseErrorCode(errors[0]!.error)} at line ${text.slice(0, errors[0]!.offset).split('\n').length}`);
  const list = Array.isArray(data) ? data : typeof data === 'object' && data !== null ? (data as Record<string, unknown>).tasks : undefined;
  if (!Array.isArray(list)) throw new TaskFileError(`--tasks ${file} must hold {"tasks": [...]} (or the array itself)`);
  if (list.length === 0) throw new TaskFileError(`--tasks ${file} names no task`);
  return list.map((v, i) => entryOf(v, `--tasks ${file}: task ${i + 1}`));
}

/** The top folder of the entry's repository, or why it cannot be one. */
async function repoOf(file: string, repo: string, where: string): Promise<string> {
  const dir = path.resolve(path.dirname(file), repo);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new TaskFileError(`${where}: "repo" ${dir} is not a folder`);
  const top = (await git(dir, ['rev-parse', '--show-toplevel'], { allowFail: true })).trim();
  if (top === '') throw new TaskFileError(`${where}: "repo" ${dir} is not in a git repository (a work tree)`);
  return top;
}

async function resolveRev(root: string, rev: string, where: string): Promise<string> {
  const out = await git(root, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { allowFail: true });
  if (out.trim() === '') throw new TaskFileError(`${where}: "${rev}" is not a commit of ${root}`);
  return out.trim();
}

/** The file's entries as candidates: revisions resolved, the reference fix listed, ids unique. */
export async function taskFileCandidates(root: string, file: string): Promise<TaskCandidate[]> {
  const entries = readTaskFile(file);
  const out: TaskCandidate[] = [];
  const ids = new Map<string, number>();
  for (const [i, e] of entries.entries()) {
    const where = `--tasks ${file}: task ${i + 1}`;
    // Another repository's tasks name it (copies come from there); the bench's own needs no name.
    const repo = e.repo !== undefined ? await repoOf(file, e.repo, where) : root;
    const other = repo !== root && repo !== (await git(root, ['rev-parse', '--show-toplevel'], { allowFail: true })).trim();
    const commit = await resolveRev(repo, e.rev, where);
    const parent = e.base !== undefined ? await resolveRev(repo, e.base, where) : await resolveRev(repo, `${commit}^`, `${where} (no "base", so the first parent of "${e.rev}")`);
    if (parent === commit) throw new TaskFileError(`${where}: "base" is "rev" itself: nothing to fix`);
    const changed = (await git(repo, ['-c', 'core.quotePath=false', 'diff', '--name-only', '--no-renames', '-z', parent, commit, '--'])).split('\0').filter((p) => p !== '');
    const referenceFiles = changed.filter((p) => !e.files.includes(p));
    if (referenceFiles.length === 0) throw new TaskFileError(`${where}: between ${parent.slice(0, 10)} and ${e.rev} only the test files change: there is no fix to measure`);
    const subject = (await git(repo, ['log', '-1', '--format=%s', commit])).trim();
    const id = e.id ?? commit.slice(0, 10);
    if (ids.has(id)) throw new TaskFileError(`${where}: id "${id}" is task ${ids.get(id)! + 1}'s too: give each an "id"`);
    ids.set(id, i);
    out.push({ id, commit, parent, subject, testFiles: e.files, referenceFiles, origin: other ? `tasks ${file} (repository ${repo})` : `tasks ${file}`, ...(other ? { repo } : {}), ...(e.instruction !== undefined ? { instruction: e.instruction } : {}) });
  }
  return out;
}
