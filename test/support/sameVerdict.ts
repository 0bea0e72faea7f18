// The verdict-equality assertion the staged and pre-started suites share: a pass with an
// optimisation on gives the failures, flakes, identity and green an unstaged pass gives.
import assert from 'node:assert/strict';
import type { Failure, VerifyResult } from '../../src/core/types';

const shown = (f: Failure): string => `${f.file}:${f.line}:${f.id}:${f.message}`;

export function assertSameVerdict(v: VerifyResult, c: VerifyResult): void {
  assert.deepEqual(v.failures.map(shown), c.failures.map(shown));
  assert.deepEqual(v.flaky.map(shown), c.flaky.map(shown));
  assert.equal(v.failureHash, c.failureHash);
  assert.equal(v.green, c.green);
}
