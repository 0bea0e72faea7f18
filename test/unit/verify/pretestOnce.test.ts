// A check pass runs each part of a test script's `pretest` once (issue 39, validator.js: `pretest:
// npm run build && npm run lint`, `test: nyc mocha`): the flake confirmation re-runs the runner alone
// on the bytes the first attempt just built and linted, and a pretest `lint` that is a check of its
// own runs once, as that check. Real tsc, ESLint and mocha; each part leaves a line in COUNT_LOG.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckSpec, Failure, Logger, VerifyResult } from '../../../src/core/types';
import { discoverChecks } from '../../../src/core/verify/discover';
import { failureIdentity } from '../../../src/core/verify/identity';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

describe('pretest parts once per check pass', function () {
  this.timeout(180_000);
  let s: Scratch;
  beforeEach(() => (s = copyFixture('verify/pretestLint')));
  afterEach(() => s.cleanup());

  async function pass(checks: CheckSpec[], tag: string, flaky: boolean, staged = true): Promise<{ r: VerifyResult; counts: Record<string, number>; ran: string[] }> {
    const log = path.join(s.dir, `${tag}.count`);
    const state = path.join(s.dir, `${tag}.state`);
    rmSync(state, { recursive: true, force: true });
    mkdirSync(state);
    const ran: string[] = [];
    const logger: Logger = { ...silent(), debug: (m: string) => (/^check [\w-]+: (?!exit)/.test(m) ? ran.push(m) : undefined) };
    const env: Record<string, string> = { COUNT_LOG: log, ...(flaky ? { FLAKY_STATE: state } : {}) };
    const v = new Verifier({ root: s.project, checks, parallel: false, outputLimitKb: 256, flakyReruns: 1, staged, logger, env, storageDir: path.join(s.dir, `storage-${tag}`) });
    const r = await v.verify();
    await v.release();
    const counts: Record<string, number> = {};
    for (const l of existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) counts[l] = (counts[l] ?? 0) + 1;
    return { r, counts, ran };
  }

  const keys = (fs: readonly Failure[]): string[] => fs.map((f) => `${f.check} ${f.file} ${f.id}`).sort();

  for (const flaky of [false, true]) {
    it(`builds and lints once per pass, confirms by the runner alone, and decides as the checks run apart (${flaky ? 'a flaky test' : 'no flake'})`, async () => {
      const { checks } = discoverChecks(s.project);
      assert.deepEqual(checks.map((c) => c.name).sort(), ['lint', 'test']);
      const once = await pass(checks, 'once', flaky);
      // The lint check lints; the pretest's `npm run lint` is that check's run, not another.
      assert.equal(once.counts.lint, 1, once.ran.join('\n'));
      // The pretest builds once: the confirmation re-runs mocha on what it built, without c8.
      assert.equal(once.counts.build, 1, once.ran.join('\n'));
      // The run, then one re-run by the failing tests' names (a flake that passes there is called flaky by it).
      assert.equal(once.counts.test, 2, once.ran.join('\n'));
      assert.ok(once.ran.some((c) => /^check test: mocha .*--grep/.test(c)), once.ran.join('\n'));
      // The verdict and identity the checks give run apart, each its whole command (the old pass).
      const lint = await pass(checks.filter((c) => c.name === 'lint'), 'lint', flaky, false);
      const test = await pass(checks.filter((c) => c.name === 'test'), 'test', flaky, false);
      assert.equal(test.counts.build, 2, 'a whole re-run builds again');
      const failures = [...lint.r.failures, ...test.r.failures];
      assert.deepEqual(keys(once.r.failures), ['test test/sum.test.js sum adds']);
      assert.deepEqual(keys(once.r.failures), keys(failures));
      assert.equal(once.r.failureHash, failureIdentity(failures, { root: s.project }));
      assert.deepEqual(keys(once.r.flaky), keys([...lint.r.flaky, ...test.r.flaky]));
      assert.deepEqual(once.r.flaky.map((f) => f.id), flaky ? ['flaky settles'] : []);
      assert.equal(once.r.green, false);
    });
  }

  it('runs the pretest whole, and the lint with it, where the lint check did not pass', async () => {
    writeFileSync(path.join(s.project, 'src/eq.ts'), 'export const same = (a: unknown, b: unknown): boolean => a == b;\n');
    const { checks } = discoverChecks(s.project);
    const p = await pass(checks, 'lintFails', false);
    // The lint check, and the chain as written (its confirmation too: it failed before its runner).
    assert.ok((p.counts.lint ?? 0) >= 2, p.ran.join('\n'));
    assert.ok(p.ran.includes('check test: npm test --silent'), p.ran.join('\n'));
    assert.deepEqual(keys(p.r.failures).filter((k) => k.startsWith('lint ')), ['lint src/eq.ts eqeqeq']);
  });
});

function silent(): Logger {
  const none = (): void => undefined;
  return { info: none, warn: none, error: none, debug: none };
}
