// Shared shapes of the engine. Everything a front end (CLI, VS Code) sees of a run is here.

export type ParserId = 'tsc' | 'eslint' | 'biome' | 'oxlint' | 'mocha' | 'jest' | 'vitest' | 'node-test' | 'tap' | 'ava' | 'uvu' | 'prettier' | 'generic';

export interface CheckSpec {
  name: string;
  command: string;
  parser?: ParserId;
  timeoutSeconds?: number;
  /** Workspace-relative directory the check runs in (default: the workspace root). */
  cwd?: string;
}

/** One failing thing a check reported. `file` is workspace-relative with forward slashes. */
export interface Failure {
  check: string;
  file?: string;
  line?: number;
  column?: number;
  /** TS code, ESLint rule, or full test title. */
  id?: string;
  message: string;
  /**
   * Not re-run by this (staged) verification: carried over from the last run that covered its file.
   * It counts in the identity like any other, so a state compares like with like.
   */
  carried?: boolean;
  /**
   * What the failed assertion got and expected, and the mismatch in one line, as the verifier read
   * them from `message` (verify/values.ts): the extension's shell shows them without bundling the
   * reader. Absent when the message shows no values, and in traces written before it. Derived from
   * `message`, so not part of the identity (verify/identity.ts).
   */
  values?: FailureValues;
}

/** A failed assertion's values (Failure.values). */
export interface FailureValues {
  /** `'12.5 EUR' !== '12.05 EUR'`, `Expected "12.05 EUR", received "12.5 EUR"`: as the runner words it. */
  headline: string;
  actual: string;
  expected: string;
}

/**
 * A test a check's output names as passed, by the same `id` (and `file`, when the output names it)
 * as the failure parser of its runner gives the test when it fails (verify/parsers/passed.ts).
 */
export interface PassedTest {
  id: string;
  file?: string;
}

/** How a check ran in one verification (DESIGN §4 staged checks): only `full` can decide green. */
export type CheckMode = 'warm' | 'targeted' | 'full';

export interface CheckResult {
  name: string;
  command: string;
  exitCode: number | null;
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  /** Output kept after decoding, ANSI stripping and capping (head and tail). */
  output: string;
  truncated: boolean;
  /**
   * Set when the output was cut where its failures are not all listed: `failures` are those of the
   * part kept, `reported` the count the tool's own summary gave (when the part kept holds one). Such
   * a list is never compared as a count (verify/cut.ts).
   */
  incomplete?: { reported?: number };
  failures: Failure[];
  flaky: Failure[];
  /** The parser that read the output (named by the check or inferred from its command). */
  parser?: ParserId;
  /** How many times the check ran: 1, or more when it was re-run to tell flakes from failures. */
  runs?: number;
  /** How long each of those runs took, in order: the first run, then each re-run (`durationMs` is their sum). */
  runDurationsMs?: number[];
  /** PIDs of the check's processes still alive after its main process ended; all were killed. */
  strays?: number[];
  /**
   * The tests the shown run's output names as passed (test runners only, at most MAX_PASSED_TESTS),
   * none of them among `failures` or `flaky`. Absent when the output names none reliably (another
   * tool, a reporter that lists no passing test, a timeout, a cancel, a text report cut in the
   * middle). Never part of the identity or the verdict.
   */
  passed?: PassedTest[];
  /** Set when the output named more passing tests than `passed` keeps. */
  passedCapped?: boolean;
  /** Warm, targeted or full (`stagedChecks`); absent in results made before staging existed. */
  mode?: CheckMode;
  /** What a staged run covered, or why the check ran in full instead. */
  stagedNote?: string;
  /**
   * Set when the run failed because a tool it launches is not installed (the shell's exit 127, a
   * tool's `Cannot find module` for a plugin): an environment problem, said in `note`; the failures
   * it caused are not the code's, and the check does not keep the verdict from green
   * (verify/notInstalled.ts).
   */
  notInstalled?: { tools: string[]; note: string };
  /**
   * Set when the check did not run in this pass, and why: a task it depends on (the project's task
   * graph: a `build` first) failed (verify/taskGraph). Its failures are then unknown, not none.
   */
  notRun?: string;
}

export interface VerifyResult {
  green: boolean;
  failures: Failure[];
  /** Failures seen once and not reproduced on re-run; kept out of the identity. */
  flaky: Failure[];
  failureHash: string;
  checks: CheckResult[];
  durationMs: number;
}

export interface Usage {
  input: number;
  output: number;
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** A failed attempt of a model call that will be retried after `delayMs`. */
export interface RetryNotice {
  /** The attempt that failed, 1-based. */
  attempt: number;
  delayMs: number;
  /** What failed (status and message), never a key. */
  reason: string;
  retryAfterMs?: number;
}

export interface CompletionRequest {
  system: string;
  messages: ChatMessage[];
  maxOutputTokens: number;
  signal: AbortSignal;
  /** Told of each failed attempt before the provider waits and retries it. */
  onRetry?: (n: RetryNotice) => void;
}

export interface Completion {
  text: string;
  usage: Usage;
  /** True when the provider reported the usage; false when it was estimated with the tokenizer. */
  usageReported: boolean;
  /** Why generation ended, when the provider says (`stop`, `length`, ...). */
  finishReason?: string;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
};
