// The built-in critics and how their answers combine.
import assert from 'node:assert/strict';
import type { Critic, CriticState, ProposedFile, StepOutcome } from '../../../src/core/policy/critics';
import { addedSuppressions, builtinCritics, CriticFault, noSuppressionsCritic, protectedPathsCritic, regressionCritic, runCritics } from '../../../src/core/policy/critics';
import { DEFAULT_PROTECTED_PATHS, defaultSettings } from '../../../src/core/settings';
import type { Failure } from '../../../src/core/types';

function state(over: Partial<CriticState> = {}): CriticState {
  const none = { step: 0, green: false, failures: [] as Failure[] };
  return { step: 1, settings: defaultSettings(), initial: none, best: none, previous: none, ...over };
}

function modify(path: string, before: string, after: string): ProposedFile {
  return { path, kind: 'modify', before, after };
}

const f = (check: string, file: string, id: string, message = 'boom'): Failure => ({ check, file, id, message });

describe('critics', () => {
  describe('protected paths', () => {
    const critic = protectedPathsCritic(DEFAULT_PROTECTED_PATHS);
    const verdict = (paths: string[], kind: ProposedFile['kind'] = 'modify'): string =>
      (critic.reviewProposal!({ step: 1, reply: '', files: paths.map((p) => ({ path: p, kind, before: 'a', after: kind === 'delete' ? null : 'b' })) }, state()) as { verdict: string }).verdict;

    it('sends edits to test files back (default globs)', () => {
      for (const p of ['test/cart.test.ts', 'src/cart.spec.js', 'src/__tests__/cart.ts', 'tests/a.js', 'packages/x/test/helpers.ts', 'a.test.mjs', 'test/.hidden.ts']) {
        assert.equal(verdict([p]), 'retry', p);
      }
    });

    it('lets source edits through', () => {
      for (const p of ['src/cart.ts', 'src/testing.ts', 'lib/contest/a.ts', 'README.md']) assert.equal(verdict([p]), 'continue', p);
    });

    it('catches creating and deleting protected files too', () => {
      assert.equal(verdict(['test/new.test.ts'], 'create'), 'retry');
      assert.equal(verdict(['test/cart.test.ts'], 'delete'), 'retry');
    });

    it('names the files and the globs', async () => {
      const r = await critic.reviewProposal!({ step: 1, reply: '', files: [modify('src/a.ts', 'a', 'b'), modify('test/a.test.ts', 'a', 'b')] }, state());
      assert.equal(r.verdict, 'retry');
      assert.match(r.reason, /test\/a\.test\.ts \(modify\)/);
      assert.doesNotMatch(r.reason, /src\/a\.ts/);
    });

    it('uses custom globs, and none at all when the list is empty', () => {
      const custom = protectedPathsCritic(['config/**', '*.lock']);
      const v = (p: string): string => (custom.reviewProposal!({ step: 1, reply: '', files: [modify(p, 'a', 'b')] }, state()) as { verdict: string }).verdict;
      assert.equal(v('config/app/settings.json'), 'retry');
      assert.equal(v('yarn.lock'), 'retry');
      assert.equal(v('test/a.test.ts'), 'continue');
      const open = protectedPathsCritic([]);
      assert.equal((open.reviewProposal!({ step: 1, reply: '', files: [modify('test/a.test.ts', 'a', 'b')] }, state()) as { verdict: string }).verdict, 'continue');
    });
  });

  describe('no suppressions', () => {
    const critic = noSuppressionsCritic();
    const review = (files: ProposedFile[]): { verdict: string; reason: string } => critic.reviewProposal!({ step: 1, reply: '', files }, state()) as { verdict: string; reason: string };

    it('sends back each added suppression', () => {
      const cases: [string, string][] = [
        ['@ts-ignore', '  // @ts-ignore\n  return text;'],
        ['@ts-expect-error', '  // @ts-expect-error wrong type\n  return text;'],
        ['eslint-disable', '/* eslint-disable */\nconst a = 1;'],
        ['eslint-disable', '  // eslint-disable-next-line no-console\n  console.log(a);'],
        ['.skip(', "describe.skip('cart', () => {});"],
        ['.skip(', "it.skip('adds', () => {});"],
        ['.only(', "it.only('adds', () => {});"],
        ['xit(', "xit('adds', () => {});"],
      ];
      for (const [name, after] of cases) {
        const r = review([modify('src/a.ts', 'const a = 1;\n', after)]);
        assert.equal(r.verdict, 'retry', after);
        assert.ok(r.reason.includes(name), `${r.reason} names ${name}`);
      }
    });

    it('counts only added lines: existing, moved or removed suppressions pass', () => {
      const before = 'a();\n// @ts-ignore\nb();\nit.skip("x", () => {});\n';
      assert.equal(review([modify('src/a.ts', before, 'a();\n// @ts-ignore\nb();\nit.skip("x", () => {});\nc();\n')]).verdict, 'continue', 'untouched');
      assert.equal(review([modify('src/a.ts', before, '    // @ts-ignore\nb();\na();\nit.skip("x", () => {});\n')]).verdict, 'continue', 'moved and re-indented');
      assert.equal(review([modify('src/a.ts', before, 'a();\nb();\n')]).verdict, 'continue', 'removed');
      assert.equal(review([modify('src/a.ts', before, before + '// @ts-ignore\n')]).verdict, 'retry', 'a second copy is added');
    });

    it('does not mistake look-alikes for suppressions', () => {
      const after = 'process.exit(1);\nconst skip = 1;\nexit(0);\nconst only = x.onlyOne();\n// the ts-ignore comment style is banned\n';
      assert.equal(review([modify('src/a.ts', '', after)]).verdict, 'continue');
    });

    it('looks at created files and ignores deleted ones', () => {
      assert.equal(review([{ path: 'src/n.ts', kind: 'create', before: null, after: '// @ts-nocheck\n' }]).verdict, 'retry');
      assert.equal(review([{ path: 'src/o.ts', kind: 'delete', before: '// @ts-ignore\n', after: null }]).verdict, 'continue');
    });

    it('reports file, pattern and line', () => {
      assert.deepEqual(addedSuppressions([modify('src/a.ts', 'x\n', 'x\n  // @ts-ignore  \n')]), [{ file: 'src/a.ts', pattern: '@ts-ignore', line: '// @ts-ignore' }]);
    });
  });

  describe('regression', () => {
    const critic = regressionCritic();
    const initial = { step: 0, green: false, failures: [f('test', 'test/a.test.ts', 'adds'), f('test', 'test/a.test.ts', 'muls'), f('tsc', 'src/a.ts', 'TS2322')] };
    const result = (failures: Failure[]): StepOutcome => ({ step: 2, green: failures.length === 0, failures, failureHash: 'h', files: [] });

    it('rolls back to the best state when the count rises above the best', async () => {
      const best = { step: 1, green: false, failures: [f('test', 'test/a.test.ts', 'muls')] };
      const r = await critic.reviewResult!(result([f('test', 'test/a.test.ts', 'muls'), f('test', 'test/a.test.ts', 'adds')]), state({ initial, best }));
      assert.equal(r.verdict, 'retry');
      assert.equal(r.rollbackTo, 'best');
      assert.match(r.reason, /2 failure\(s\), more than the 1 of the best state \(step 1\)/);
      assert.equal(r.score, -1);
    });

    it('rolls back when the count is not below the best and something that passed at step 0 now fails', async () => {
      const best = { step: 1, green: false, failures: [f('test', 'test/a.test.ts', 'muls')] };
      const r = await critic.reviewResult!(result([f('test', 'test/a.test.ts', 'divides', 'expected 2, got Infinity')]), state({ initial, best }));
      assert.equal(r.verdict, 'retry');
      assert.equal(r.rollbackTo, 'best');
      assert.match(r.reason, /newly failing \(passed at step 0\): \[test\] test\/a\.test\.ts divides: expected 2, got Infinity/);
    });

    it('lets progress through even when a new failure appears (fewer overall)', async () => {
      const r = await critic.reviewResult!(result([f('test', 'test/a.test.ts', 'divides')]), state({ initial, best: initial }));
      assert.equal(r.verdict, 'continue');
    });

    it('compares failing ids, not messages', async () => {
      const changed = initial.failures.map((x) => ({ ...x, message: `${x.message} with a different message at line 12` }));
      const r = await critic.reviewResult!(result(changed), state({ initial, best: initial }));
      assert.equal(r.verdict, 'continue');
    });

    it('continues on green', async () => {
      assert.equal((await critic.reviewResult!(result([]), state({ initial, best: initial }))).verdict, 'continue');
    });
  });

  describe('running critics', () => {
    const answer = (name: string, verdict: 'continue' | 'retry' | 'stop', extra: object = {}): Critic => ({
      name,
      reviewProposal: () => ({ verdict, reason: `${name} says ${verdict}`, ...extra }),
    });
    const proposal = { step: 1, reply: '', files: [] };

    it('keeps every answer; stop beats retry beats continue', async () => {
      const r = await runCritics([answer('a', 'continue'), answer('b', 'retry'), answer('c', 'stop', { score: 0.2 }), answer('d', 'retry', { rollbackTo: 'best' })], 'proposal', proposal, state());
      assert.deepEqual(r.verdicts.map((v) => `${v.critic}:${v.verdict}:${v.phase}`), ['a:continue:proposal', 'b:retry:proposal', 'c:stop:proposal', 'd:retry:proposal']);
      assert.equal(r.verdict, 'stop');
      assert.equal(r.stop?.critic, 'c');
      assert.equal(r.stop?.score, 0.2);
      assert.equal(r.rollbackTo, 'best');
      const retry = await runCritics([answer('a', 'continue'), answer('b', 'retry')], 'proposal', proposal, state());
      assert.equal(retry.verdict, 'retry');
      assert.equal(retry.rollbackTo, 'previous');
    });

    it('skips critics that do not review the phase', async () => {
      const r = await runCritics([answer('a', 'retry')], 'result', { ...proposal, green: false, failures: [], failureHash: 'h', step: 1 }, state());
      assert.deepEqual(r.verdicts, []);
      assert.equal(r.verdict, 'continue');
    });

    it('turns a throwing or nonsensical critic into a CriticFault naming it', async () => {
      const thrower: Critic = { name: 'boom', reviewProposal: () => { throw new Error('kaput'); } };
      await assert.rejects(runCritics([thrower], 'proposal', proposal, state()), (e: unknown) => e instanceof CriticFault && /critic boom: threw while reviewing the proposal: kaput/.test(e.message));
      const bad: Critic = { name: 'odd', reviewProposal: () => ({ verdict: 'maybe', reason: 'x' }) as never };
      await assert.rejects(runCritics([bad], 'proposal', proposal, state()), /critic odd: answered verdict "maybe"/);
      const silent: Critic = { name: 'mute', reviewProposal: () => ({ verdict: 'retry', reason: ' ' }) };
      await assert.rejects(runCritics([silent], 'proposal', proposal, state()), /critic mute: answered without a reason/);
      const nanScore: Critic = { name: 'nan', reviewProposal: () => ({ verdict: 'continue', reason: 'ok', score: Number.NaN }) };
      await assert.rejects(runCritics([nanScore], 'proposal', proposal, state()), /score null/);
    });

    it('awaits asynchronous critics', async () => {
      const slow: Critic = { name: 'slow', reviewProposal: async () => ({ verdict: 'stop', reason: 'later' }) };
      assert.equal((await runCritics([slow], 'proposal', proposal, state())).verdict, 'stop');
    });
  });

  it('switches the built-ins with the settings', () => {
    const names = (o: { forbidSuppressions: boolean; rollbackRegressions: boolean }): string[] => builtinCritics({ protectedPaths: [...DEFAULT_PROTECTED_PATHS], ...o }).map((c) => c.name);
    assert.deepEqual(names({ forbidSuppressions: true, rollbackRegressions: true }), ['protected-paths', 'no-suppressions', 'regression']);
    assert.deepEqual(names({ forbidSuppressions: false, rollbackRegressions: true }), ['protected-paths', 'regression']);
    assert.deepEqual(names({ forbidSuppressions: true, rollbackRegressions: false }), ['protected-paths', 'no-suppressions']);
  });
});
