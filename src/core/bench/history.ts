// The history scan: which first-parent commits could be a task. One `git log` call reads every commit's
// changed files (a call per commit would take minutes on a long history; see bench/ "bench history
// scan"); the classification of each file is a pure function of its path, so the scan is a parse.
import picomatch from 'picomatch';
import { DEFAULT_PROTECTED_PATHS } from '../settings';
import { git } from './git';

export type FileRole = 'test' | 'source' | 'install' | 'other';

export interface ChangedFile {
  path: string;
  /** git's status letter: A (added), M (modified), D (deleted), T (type changed). */
  status: string;
  role: FileRole;
}

export interface HistoryCommit {
  commit: string;
  /** The first parent; null for a root commit. */
  parent: string | null;
  /** Committer time, seconds since the epoch. */
  time: number;
  subject: string;
  files: ChangedFile[];
}

/** Why a commit is not a candidate before any check runs (`--explain` words these). */
export type ScanDrop = 'root-commit' | 'no-tests-changed' | 'no-source-changed' | 'install-needed';

export interface ScanResult {
  commits: HistoryCommit[];
  /** Commits with both test and source changes, oldest first (the order tasks are numbered in). */
  candidates: HistoryCommit[];
  dropped: { commit: HistoryCommit; reason: ScanDrop; detail: string }[];
}

export interface ScanOptions {
  /** The newest N first-parent commits. */
  last?: number;
  /** Commits after REV (REV..HEAD). */
  since?: string;
  /** Globs that name test files (the default test patterns of `protectedPaths`). */
  testGlobs?: readonly string[];
  signal?: AbortSignal;
}

const SOURCE = /\.(?:[cm]?[jt]sx?)$/;
/** Files whose change means the task's dependencies differ from those installed. */
const INSTALL = /(?:^|\/)(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?)$/;

export function fileRole(file: string, isTest: (p: string) => boolean): FileRole {
  if (INSTALL.test(file)) return 'install';
  if (isTest(file)) return 'test';
  if (SOURCE.test(file) && !file.endsWith('.d.ts')) return 'source';
  return 'other';
}

// Record and field separators no path or subject holds (ASCII RS and US).
const RS = '\x1e';
const US = '\x1f';

/**
 * Parses `git log --first-parent --diff-merges=first-parent --no-renames --name-status
 * --format=RS%H US%P US%ct US%s`: a record per commit, its header line then `X\tpath` lines.
 */
export function parseLog(out: string, isTest: (p: string) => boolean): HistoryCommit[] {
  const commits: HistoryCommit[] = [];
  for (const rec of out.split(RS)) {
    if (rec.trim() === '') continue;
    const nl = rec.indexOf('\n');
    const header = nl < 0 ? rec : rec.slice(0, nl);
    const [commit = '', parents = '', time = '0', ...subject] = header.split(US);
    const files: ChangedFile[] = [];
    for (const line of (nl < 0 ? '' : rec.slice(nl + 1)).split('\n')) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const status = line.slice(0, tab).trim().charAt(0);
      const p = line.slice(tab + 1);
      files.push({ path: p, status, role: fileRole(p, isTest) });
    }
    commits.push({ commit, parent: parents.split(' ')[0] || null, time: Number(time), subject: subject.join(US), files });
  }
  return commits;
}

/** Why `c` cannot be a task whatever the checks say, or undefined when it is a candidate. */
export function scanVerdict(c: HistoryCommit): { reason: ScanDrop; detail: string } | undefined {
  const of = (r: FileRole): ChangedFile[] => c.files.filter((f) => f.role === r);
  if (c.parent === null) return { reason: 'root-commit', detail: 'the first commit has no parent to start from' };
  if (of('test').length === 0) return { reason: 'no-tests-changed', detail: c.files.length === 0 ? 'no files changed' : `changes ${c.files.length} file(s), none of them a test (${c.files.slice(0, 3).map((f) => f.path).join(', ')})` };
  if (of('source').length === 0) return { reason: 'no-source-changed', detail: `changes tests only (${of('test').map((f) => f.path).join(', ')})` };
  const install = of('install');
  if (install.length > 0) return { reason: 'install-needed', detail: `changes ${install.map((f) => f.path).join(', ')}: its dependencies are not the ones installed` };
  return undefined;
}

export async function scanHistory(root: string, opts: ScanOptions = {}): Promise<ScanResult> {
  const isTest = picomatch([...(opts.testGlobs ?? DEFAULT_PROTECTED_PATHS)], { dot: true });
  const range = opts.since !== undefined ? [`${opts.since}..HEAD`] : ['HEAD'];
  const args = ['-c', 'core.quotePath=false', 'log', '--first-parent', '--diff-merges=first-parent', '--no-renames', '--name-status', `--format=${RS}%H${US}%P${US}%ct${US}%s`, ...(opts.last !== undefined ? [`-n${opts.last}`] : []), ...range, '--'];
  // `-c` goes before the subcommand: git() puts its own flags first, then these.
  const out = await git(root, args, opts.signal ? { signal: opts.signal } : {});
  const commits = parseLog(out, isTest).reverse();
  const candidates: HistoryCommit[] = [];
  const dropped: ScanResult['dropped'] = [];
  for (const c of commits) {
    const d = scanVerdict(c);
    if (d) dropped.push({ commit: c, ...d });
    else candidates.push(c);
  }
  return { commits, candidates, dropped };
}
