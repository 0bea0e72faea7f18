// What the Test Results view shows as a test run's output, without `vscode` (the unit tests read it
// directly): each check's own output as it printed it, headed by its command and exit code, with the
// lines a runner wrote under a test's name attributed to that test (VS Code then shows them with the
// test, as a run of the Testing view's own controllers does), and the verification of a run's stop
// found again among those the run made, so its output and its passing tests are the ones shown.
import type { VerifierPort } from '../../core/loop/options';
import type { CheckResult, Failure, VerifyResult } from '../../core/types';
import { MAX_KEPT_FAILURES } from './runState';

/** A piece of a check's output; `test`: the key of the test whose lines these are. */
export interface OutputBlock {
  text: string;
  test?: string;
}

/** A test the output may name: its key and the names a runner prints it by (its full title first). */
export interface NamedTest {
  key: string;
  names: readonly string[];
}

/** VS Code's test output is a terminal: it needs CRLF line endings, or each line starts where the last ended. */
export function crlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

const indent = (line: string): number => line.length - line.trimStart().length;

/**
 * Splits a check's output into blocks, each line once, in order. A line that names a known test
 * starts a block of that test (the longest name wins, so `adds` does not take `adds twice`'s
 * line); the block goes on over the lines indented deeper than it started, blank lines inside it,
 * and further lines naming the same test (TAP's `# Subtest: x` then `not ok 2 - x`), and ends at
 * the first other line as far left as its start. Lines no test owns are blocks without a test.
 * Names shorter than 4 characters are not looked for: they would match words of other lines.
 */
export function outputBlocks(output: string, tests: readonly NamedTest[]): OutputBlock[] {
  const lines = output.replace(/\r\n?/g, '\n').split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const names = tests.flatMap((t) => t.names.filter((n) => n.trim().length >= 4).map((n) => ({ key: t.key, name: n.trim() }))).sort((a, b) => b.name.length - a.name.length);
  const owner = (line: string): string | undefined => names.find((n) => line.includes(n.name))?.key;
  const blocks: OutputBlock[] = [];
  const push = (line: string, test: string | undefined): void => {
    const last = blocks[blocks.length - 1];
    if (last && last.test === test) last.text += `${line}\n`;
    else blocks.push({ text: `${line}\n`, ...(test !== undefined ? { test } : {}) });
  };
  let open: { test: string; indent: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const named = owner(line);
    if (open && line.trim() === '') {
      // A blank line stays in the block only when the block goes on after it.
      const next = lines.slice(i + 1).find((l) => l.trim() !== '');
      if (next !== undefined && (indent(next) > open.indent || owner(next) === open.test)) {
        push(line, open.test);
        continue;
      }
      open = undefined;
    } else if (open && named === undefined && indent(line) > open.indent) {
      push(line, open.test);
      continue;
    } else if (open && named === open.test) {
      push(line, open.test);
      continue;
    }
    open = named !== undefined ? { test: named, indent: indent(line) } : undefined;
    push(line, named);
  }
  return blocks;
}

/** The line that heads a check's output in the test run's output. */
export function checkHeading(c: Pick<CheckResult, 'name' | 'command' | 'exitCode' | 'timedOut' | 'cancelled' | 'truncated'>): string {
  const how = c.cancelled ? 'cancelled' : c.timedOut ? 'timed out' : c.exitCode === null ? 'did not start' : `exit code ${c.exitCode}`;
  return `── ${c.name}: ${c.command} (${how}${c.truncated ? '; its output was cut: the head and the tail are kept' : ''}) ──`;
}

/** The same failure in two lists (a state keeps at most MAX_KEPT_FAILURES of a verification's). */
function sameFailure(a: Failure, b: Failure): boolean {
  return a.check === b.check && a.id === b.id && a.file === b.file && a.line === b.line && a.message === b.message;
}

/**
 * Of the verifications a run made (newest last), the one whose failures a state shows: its first
 * failures are the state's, in order, and as many (or more, when the state kept only the first). The newest wins (a rollback to an earlier
 * state holds the same failures as that state's verification).
 */
export function verificationOf<V extends { failures: readonly Failure[] }>(shown: readonly Failure[], made: readonly V[]): V | undefined {
  for (let i = made.length - 1; i >= 0; i--) {
    const v = made[i]!;
    if (v.failures === shown) return v;
    // A state keeps the first MAX_KEPT_FAILURES of a verification's failures.
    if (v.failures.length !== shown.length && !(shown.length === MAX_KEPT_FAILURES && v.failures.length > shown.length)) continue;
    if (shown.every((f, j) => sameFailure(f, v.failures[j]!))) return v;
  }
  return undefined;
}

/**
 * Keeps a run's verifications for verificationOf: the newest `max`, and always the one with the
 * fewest failures (the state a run may go back to), so a long run holds a bounded amount of output.
 */
export function keepVerifications<V extends { failures: readonly Failure[] }>(made: readonly V[], v: V, max = 6): V[] {
  const out = [...made, v];
  while (out.length > max) {
    const fewest = Math.min(...out.map((x) => x.failures.length));
    const drop = out.findIndex((x, i) => i < out.length - 1 && x.failures.length !== fewest);
    out.splice(drop < 0 ? 0 : drop, 1);
  }
  return out;
}

/** A run's verifier that tells `seen` of each verification it makes (the run's trace keeps no output). */
export function observedVerifier(verifier: VerifierPort, seen: (v: VerifyResult) => void): VerifierPort {
  return {
    preflight: () => verifier.preflight(),
    verify: async (signal, options) => {
      const v = await verifier.verify(signal, options);
      seen(v);
      return v;
    },
    ...(verifier.warm ? { warm: () => verifier.warm!() } : {}),
    ...(verifier.release ? { release: () => verifier.release!() } : {}),
  };
}
