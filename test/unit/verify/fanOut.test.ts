// Issue 37, item 4: a workspace root's script that only runs every package's script is recognised
// from its argv whatever flags stand around it, for each manager, and left to the packages' checks.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { discoverChecks } from '../../../src/core/verify/discover';
import { fanOut } from '../../../src/core/verify/fanOut';
import { resolveScript } from '../../../src/core/verify/infer';
import { testCommand } from '../../../src/core/verify/staged/commands';
import { REPO } from '../../support/fixtures';

describe('fan-out scripts (a root script that runs every package\'s)', () => {
  it('is read from the argv, for each manager, with its flags anywhere', () => {
    for (const [command, manager, scripts] of [
      ['pnpm --color -r run test', 'pnpm', ['test']],
      ['pnpm -r --parallel test', 'pnpm', ['test']],
      ['pnpm --recursive --filter ./packages/* test', 'pnpm', ['test']],
      ['pnpm --filter=!docs --workspace-concurrency 1 run lint', 'pnpm', ['lint']],
      ['pnpm -F "./packages/**" --no-bail test -- --coverage', 'pnpm', ['test']],
      ['npm run test --workspaces --if-present', 'npm', ['test']],
      ['npm test -ws', 'npm', ['test']],
      ['npm run --workspaces lint', 'npm', ['lint']],
      ['npm run test -w packages/core', 'npm', ['test']],
      ['yarn workspaces foreach -A run test', 'yarn', ['test']],
      ['yarn workspaces foreach --all --topological-dev -j 4 --parallel run test', 'yarn', ['test']],
      ['yarn workspaces foreach --exclude root -A test', 'yarn', ['test']],
      ['yarn workspaces run test', 'yarn', ['test']],
      ['lerna run test', 'lerna', ['test']],
      ['lerna run test --stream --concurrency 1 --scope @x/a', 'lerna', ['test']],
      ['lerna run --stream test,lint', 'lerna', ['test', 'lint']],
      ['turbo run test', 'turbo', ['test']],
      ['turbo test', 'turbo', ['test']],
      ['turbo run test lint --filter=./packages/* --concurrency 2', 'turbo', ['test', 'lint']],
      ['npx turbo run test', 'turbo', ['test']],
      ['pnpm turbo test --cache-dir .turbo', 'turbo', ['test']],
      ['nx run-many -t test', 'nx', ['test']],
      ['nx affected -t test', 'nx', ['test']],
      ['nx run-many --target=test --all --parallel=3', 'nx', ['test']],
      ['nx run-many -t lint test --projects a,b', 'nx', ['lint', 'test']],
      ['nx affected:test --base=main', 'nx', ['test']],
      ['pnpm exec nx run-many --targets=test,lint', 'nx', ['test', 'lint']],
    ] as const) {
      assert.deepEqual(fanOut(command), { manager, scripts }, command);
    }
  });

  it('one package\'s script, a command run in each package, or a plain script run is not a fan-out', () => {
    for (const command of [
      'pnpm test', 'pnpm run test', 'npm test', 'npm run test --if-present', 'npm test --workspaces=false',
      'pnpm -r exec vitest run', 'pnpm -r install', 'pnpm --filter web', 'yarn workspace web run test', 'yarn workspaces foreach -A exec tsc',
      'yarn workspaces info', 'lerna exec -- tsc', 'lerna bootstrap', 'turbo run web#test', 'turbo prune web', 'turbo',
      'nx run web:test', 'nx test web', 'nx run-many', 'vitest run', 'tsc -b', 'node scripts/turbo.js run test',
    ]) {
      assert.equal(fanOut(command), undefined, command);
    }
  });

  it('resolveScript marks the fan-out step (npm test -ws is not this package\'s test)', () => {
    const steps = resolveScript({ pretest: 'pnpm build', build: 'tshy', test: 'pnpm --color -r run test' }, 'test');
    assert.deepEqual(steps.map((s) => [s.script, s.command, s.hook ?? false, s.fanOut?.manager]), [
      ['build', 'tshy', true, undefined],
      ['test', 'pnpm --color -r run test', false, 'pnpm'],
    ]);
    assert.deepEqual(resolveScript({ test: 'npm test -ws' }, 'test').map((s) => s.fanOut), [{ manager: 'npm', scripts: ['test'] }]);
  });

  describe('at a workspace root', () => {
    let dir: string;
    const write = (rel: string, text: string): void => {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    };
    beforeEach(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'fug-fanout-'));
      symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      write('pnpm-workspace.yaml', "packages:\n  - 'packages/*'\n");
      write('packages/a/package.json', JSON.stringify({ name: 'a', scripts: { pretest: 'tsc -b', test: 'vitest run' } }));
      write('packages/b/package.json', JSON.stringify({ name: 'b', scripts: { test: 'node --test' } }));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('every form: the packages\' tests run once each, the root\'s copy and its pretest build not at all', () => {
      for (const test of ['pnpm --color -r run test', 'pnpm -r --parallel test', 'npm run test --workspaces --if-present', 'yarn workspaces foreach -A run test', 'lerna run test', 'turbo test', 'nx run-many -t test']) {
        write('package.json', JSON.stringify({ name: 'root', private: true, scripts: { build: 'pnpm -r build', pretest: 'pnpm build', test } }));
        const d = discoverChecks(dir);
        assert.deepEqual(d.checks.map((c) => [c.name, c.command, c.cwd]), [
          ['a:test', 'npm test --silent', 'packages/a'],
          ['b:test', 'npm test --silent', 'packages/b'],
        ], test);
        const note = d.notes.find((n) => n.startsWith('test: '));
        assert.match(note ?? '', /runs each package's own script \(\w+ runs scripts\.test in every package\): the packages' checks stand in for it, each run once/, test);
        assert.match(note ?? '', /what it runs before them \(build: pnpm -r build\) is not run for them: each package's own script runs its own pre scripts/, test);
      }
    });

    it('a configured fan-out check is not narrowed as if it were one package\'s run, and says why', () => {
      write('package.json', JSON.stringify({ name: 'root', private: true, scripts: { test: 'turbo run test' } }));
      assert.match((testCommand('pnpm --color -r run test', dir, 'vitest') as { reason: string }).reason, /runs test in every package \(pnpm\)/);
      assert.match((testCommand('npm test', dir, 'vitest') as { reason: string }).reason, /the script "test" runs test in every package \(turbo\)/);
    });

    it('a root script that also checks something of its own keeps that part, run directly, without the fan-out', () => {
      write('package.json', JSON.stringify({ name: 'root', private: true, scripts: { pretest: 'tshy', test: 'tsc --noEmit && turbo run test --filter=./packages/*' } }));
      const d = discoverChecks(dir);
      assert.deepEqual(d.checks.map((c) => [c.name, c.command, c.parser, c.cwd]), [
        ['test', 'tsc --noEmit', 'tsc', undefined],
        ['a:test', 'npm test --silent', 'vitest', 'packages/a'],
        ['b:test', 'npm test --silent', 'node-test', 'packages/b'],
      ]);
      assert.match(d.notes.join('\n'), /the root's own steps run directly \(tsc --noEmit\); what it runs before them \(pretest: tshy\) is not run/);
    });
  });
});
