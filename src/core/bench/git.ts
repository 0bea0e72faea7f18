// The few git calls the bench makes, each a real `git` process (no shell). Every call that reads the
// user's repository passes --no-optional-locks, so even `git status` never refreshes (writes) the
// user's index: the bench's promise is that the user's working tree and index are left byte for byte.
import { execa } from 'execa';

export class GitError extends Error {
  constructor(
    message: string,
    readonly args: readonly string[],
  ) {
    super(message);
    this.name = 'GitError';
  }
}

export interface GitOptions {
  signal?: AbortSignal;
  /** Bytes instead of text (a file's exact contents). */
  encoding?: 'utf8' | 'buffer';
  /** Whether a non-zero exit is an answer rather than a fault (e.g. `cat-file -e`). */
  allowFail?: boolean;
}

/** Runs `git -C dir …args`; resolves stdout (text), throws GitError naming the command and git's own words. */
export async function git(dir: string, args: readonly string[], opts: GitOptions = {}): Promise<string> {
  const r = await execa('git', ['--no-optional-locks', '-C', dir, ...args], {
    reject: false,
    stripFinalNewline: false,
    maxBuffer: 1024 * 1024 * 1024,
    env: { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    ...(opts.signal ? { cancelSignal: opts.signal } : {}),
  });
  if (r.exitCode !== 0 && !opts.allowFail) {
    const what = String(r.stderr ?? '').trim().split('\n').slice(-2).join(' ') || `exit ${r.exitCode}`;
    throw new GitError(`git ${args.slice(0, 3).join(' ')} failed in ${dir}: ${what}`, args);
  }
  return r.exitCode === 0 ? String(r.stdout) : '';
}

/** A file's bytes at `rev` (`undefined` when the file is not there). */
export async function showFile(dir: string, rev: string, file: string): Promise<Buffer | undefined> {
  const r = await execa('git', ['--no-optional-locks', '-C', dir, 'show', `${rev}:${file}`], { reject: false, encoding: 'buffer', stripFinalNewline: false, env: { LC_ALL: 'C' } });
  return r.exitCode === 0 ? Buffer.from(r.stdout) : undefined;
}

/** The repository's top folder, or undefined when `dir` is not in a git work tree. */
export async function repoTop(dir: string): Promise<string | undefined> {
  const out = await git(dir, ['rev-parse', '--show-toplevel'], { allowFail: true });
  return out.trim() || undefined;
}
