// How a CLI command that cannot go on says so: one line on stderr, a JSON object on stdout when the
// caller reads JSON, and an exit code from the README's list. No stack traces.

/** The CLI's exit codes (README "Exit codes"). */
export const EXIT = {
  /** green; or the command did what it was asked */
  ok: 0,
  /** the run stopped not green; the checks fail; the reply did not apply; a revert left a conflict */
  notGreen: 1,
  /** usage or preflight error: nothing was written and no token spent (a bad flag or setting, a check's executable missing, the folder busy with another run, --storage not writable) */
  usage: 2,
  /** a fault the command could not go on from: the file system refused a read or write (disk full, permission denied, a file where a folder should be), or an internal error */
  fault: 3,
} as const;

/** What kind of refusal, in the JSON answer's `kind`. */
export type CliErrorKind = 'usage' | 'preflight' | 'busy' | 'io' | 'internal';

/** Marks a UsageError from any of the CLI's bundles (each command is a bundle with its own copy of this class). */
const USAGE_ERROR = Symbol.for('fix-until-green.UsageError');

/** A usage or preflight problem: the CLI prints its one-line message and exits 2. */
export class UsageError extends Error {
  readonly [USAGE_ERROR] = true;

  /** `instanceof` holds across the bundles: cli.js reports what a command's bundle threw. */
  static override [Symbol.hasInstance](v: unknown): boolean {
    return typeof v === 'object' && v !== null && USAGE_ERROR in v;
  }

  constructor(
    message: string,
    readonly kind: 'usage' | 'preflight' | 'busy' = 'usage',
    /** Extra fields for the JSON answer (e.g. the run holding the folder). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface CliFailure {
  kind: CliErrorKind;
  exitCode: number;
  /** One line. */
  message: string;
  details: Record<string, unknown>;
}

const ERRNO_MEANING: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  EEXIST: 'it already exists',
  ENOENT: 'no such file or folder',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  EIO: 'input/output error',
  EBUSY: 'the resource is busy',
  ETXTBSY: 'the file is busy',
};

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, '; ').trim();
}

/** The error a command threw, as the CLI reports it. */
export function describeCliError(e: unknown): CliFailure {
  if (e instanceof UsageError) return { kind: e.kind, exitCode: EXIT.usage, message: oneLine(e.message), details: e.details };
  const err = e as (NodeJS.ErrnoException & { dest?: string }) | undefined;
  const code = err && typeof err === 'object' && typeof err.code === 'string' ? err.code : undefined;
  // parseArgs reports unknown or malformed flags with ERR_PARSE_ARGS_* codes.
  if (code?.startsWith('ERR_PARSE_ARGS')) return { kind: 'usage', exitCode: EXIT.usage, message: oneLine(err!.message), details: {} };
  if (code && /^E[A-Z0-9]+$/.test(code) && typeof err!.syscall === 'string') {
    const what = err!.path ? `${err!.syscall} ${err!.path}${err!.dest ? ` → ${err!.dest}` : ''}` : err!.syscall;
    const meaning = ERRNO_MEANING[code];
    return { kind: 'io', exitCode: EXIT.fault, message: oneLine(`cannot ${what}: ${code}${meaning ? ` (${meaning})` : ''}`), details: { errno: code, ...(err!.path ? { path: err!.path } : {}) } };
  }
  const message = e instanceof Error ? e.message : String(e);
  // A FIFO, socket or device where the product keeps a file (core/fileText): the message names it.
  if (code === 'ENOTREG') return { kind: 'io', exitCode: EXIT.fault, message: oneLine(message), details: { errno: code } };
  return { kind: code && /^E[A-Z0-9]+$/.test(code) ? 'io' : 'internal', exitCode: EXIT.fault, message: oneLine(`internal error: ${message}`), details: code ? { errno: code } : {} };
}

/** The JSON answer of a command that could not go on. */
export function failureJson(f: CliFailure, command: string): Record<string, unknown> {
  const base = { error: f.message, kind: f.kind, exitCode: f.exitCode, ...f.details };
  // `apply` and `parse` always answer JSON; a refusal keeps the shape their callers read.
  if (command === 'apply') return { applied: false, files: [], errors: [f.message], ...base };
  if (command === 'parse') return { failures: [], failureHash: null, ...base };
  return base;
}

/** The output side of the CLI (main.ts's `CliIo`), as the failure printer needs it. */
interface FailureIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** Commands whose every answer is JSON on stdout, refusals included. */
const ALWAYS_JSON = new Set(['apply', 'parse']);

/**
 * Prints a command that could not go on: one line on stderr and, when the caller reads JSON, a JSON
 * object on stdout. Returns the exit code.
 */
export function printFailure(command: string, argv: readonly string[], f: CliFailure, io: FailureIo): number {
  io.stderr(`fix-until-green ${command}: ${f.message}`);
  if (ALWAYS_JSON.has(command) || argv.includes('--json')) io.stdout(JSON.stringify(failureJson(f, command), null, 2));
  return f.exitCode;
}
