// A verifier for the extension's unit tests that reads the real files of the calc fixture and
// answers at once: green when mul multiplies, else one failure quoting mul's body. Real checks
// would only make these tests slow; the loop runs real tsc and node:test in test/unit/loop.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { VerifierPort } from '../../../src/core/loop/run';
import type { Failure, VerifyResult } from '../../../src/core/types';
import { failureIdentity } from '../../../src/core/verify/identity';

export const CALC = 'src/calc.ts';

/** Green when mul multiplies; otherwise one failure whose message quotes mul's body. */
export class ScriptedVerifier implements VerifierPort {
  calls = 0;
  /** Resolves the next verify only when released, to observe a run in flight. */
  hold: Promise<void> | undefined;
  constructor(private readonly root: string) {}
  preflight(): string[] {
    return [];
  }
  async verify(signal?: AbortSignal): Promise<VerifyResult> {
    this.calls++;
    if (this.hold) await Promise.race([this.hold, new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }))]);
    const text = readFileSync(path.join(this.root, CALC), 'utf8');
    const body = /mul\(a: number, b: number\): number \{\n {2}return (.*);/.exec(text)?.[1] ?? '?';
    const failures: Failure[] = body === 'a * b' ? [] : [{ check: 'test', file: 'test/calc.test.ts', line: 8, id: 'mul multiplies', message: `expected 6, mul returns ${body}` }];
    return { green: failures.length === 0, failures, flaky: [], failureHash: failureIdentity(failures, { root: this.root }), checks: [{ name: 'test', command: 'scripted', exitCode: failures.length ? 1 : 0, durationMs: 1, timedOut: false, cancelled: false, output: '', truncated: false, failures, flaky: [] }], durationMs: 1 };
  }
}

