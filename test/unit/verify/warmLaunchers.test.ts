// The warm type checker and the warm linter behind launchers (src/core/verify/staged/warmLaunch.ts):
// a tsc or eslint that npx, cross-env or env with their variables, or node running the package's bin
// file start is kept warm, its worker started as the command starts the tool (the variables, the
// node, its flags) and keyed on that environment; `env -i`, a script named like the tool, a node
// flag or NODE_OPTIONS entry that loads code run the command. Real tsc and ESLint, projects under
// the temp folder.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Failure, Logger } from '../../../src/core/types';
import { checkEnv, runCommand } from '../../../src/core/verify/runner';
import { warmEslintPlan, WarmLinters } from '../../../src/core/verify/staged/warmEslint';
import { WarmTsc, warmTscPlan } from '../../../src/core/verify/staged/warmTsc';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture, REPO, tempTree } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { liveRecorded } from '../../support/procs';

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const keys = (fs: readonly Failure[]): string[] => fs.map((f) => `${f.file}:${f.line}:${f.id}`).sort();
const LIMIT = 256 * 1024;

describe('warm checks behind launchers', function () {
  this.timeout(180000);
  let s: Scratch;
  beforeEach(() => {
    s = copyFixture('verify/tsc');
  });
  afterEach(() => s.cleanup());

  it('the rule: tsc and eslint behind npx, cross-env or env with their variables, node running the bin are warm, started as the command starts them; anything else runs the command, saying why', () => {
    const env = checkEnv(s.project);
    const tsc = (command: string) => warmTscPlan(command, s.project, env);
    const ok = (command: string) => {
      const p = tsc(command);
      assert.ok(!('fallback' in p), `${command}: ${'fallback' in p ? p.fallback : ''}`);
      return p;
    };
    const heap = ok('cross-env NODE_OPTIONS=--max-old-space-size=4096 tsc -p .');
    assert.deepEqual(heap.args, ['-p', '.']);
    assert.equal(heap.start.env.NODE_OPTIONS, '--max-old-space-size=4096', 'the variable is the worker\'s');
    assert.equal(heap.start.env.PATH, env.PATH, 'over the check\'s environment');
    assert.deepEqual(ok('env TZ=UTC tsc --noEmit').start.launch.vars, { TZ: 'UTC' });
    assert.deepEqual(ok('env A=1 A=2 tsc --noEmit').start.env.A, '2', 'a later assignment wins, as env does');
    assert.deepEqual(ok('npx tsc').start.launch.vars, {});
    ok('npx --no-install tsc --noEmit');
    assert.equal(ok('node node_modules/typescript/bin/tsc --noEmit').start.launch.node?.bin, 'node');
    assert.deepEqual(ok('node --max-old-space-size=3000 node_modules/typescript/bin/tsc --noEmit').start.nodeFlags, ['--max-old-space-size=3000'], 'the worker\'s node gets the command\'s node flags');
    assert.notEqual(ok('env TZ=UTC tsc').start.key, ok('env TZ=Europe/Paris tsc').start.key, 'another assignment is another worker');

    const refused = (command: string, why: RegExp) => {
      const p = tsc(command);
      assert.ok('fallback' in p, `${command} is not warm`);
      assert.match(p.fallback, why, command);
    };
    refused('env -i tsc --noEmit', /not a tsc call behind launchers only/);
    refused('dotenv -- tsc --noEmit', /not a tsc call behind launchers only/);
    refused('node build.js tsc', /not a tsc call behind launchers only/);
    mkdirSync(path.join(s.project, 'scripts'));
    writeFileSync(path.join(s.project, 'scripts', 'tsc'), '#!/bin/sh\nexec tsc "$@"\n');
    chmodSync(path.join(s.project, 'scripts', 'tsc'), 0o755);
    refused('scripts/tsc --noEmit', /is not the workspace's typescript package/);
    refused('cross-env NODE_OPTIONS=--require=./hook.cjs tsc --noEmit', /NODE_OPTIONS has --require=\.\/hook\.cjs, which may load or change code/);
    refused('node --require ./hook.cjs node_modules/typescript/bin/tsc --noEmit', /node has --require/);
    refused('node --import=tsx node_modules/typescript/bin/tsc --noEmit', /node has --import=tsx/);
    refused('env PATH=/nonexistent tsc --noEmit', /tsc \(not found\)/);

    const lint = (argv: string[]) => warmEslintPlan(argv, s.project, env);
    const strict = lint(['cross-env', 'LINT_STRICT=1', 'eslint', 'src']);
    assert.ok(!('fallback' in strict));
    assert.deepEqual(strict.args, ['src']);
    assert.equal(strict.start.env.LINT_STRICT, '1');
    for (const argv of [['npx', '--no-install', 'eslint', '.'], ['node', 'node_modules/eslint/bin/eslint.js', '.'], ['env', 'LINT_STRICT=1', 'eslint', '.']]) {
      const p = lint(argv);
      assert.ok(!('fallback' in p), `${argv.join(' ')}: ${'fallback' in p ? p.fallback : ''}`);
    }
    const cold = lint(['env', '-i', 'eslint', '.']);
    assert.ok('fallback' in cold && /not an eslint call behind launchers only/.test(cold.fallback));
    const loads = lint(['env', 'NODE_OPTIONS=--import=./x.mjs', 'eslint', '.']);
    assert.ok('fallback' in loads && /NODE_OPTIONS has --import/.test(loads.fallback));
    // ESLint prints its TIMING table as its process exits: a worker kept between runs never would.
    const timing = lint(['cross-env', 'TIMING=1', 'eslint', 'src']);
    assert.ok('fallback' in timing && /TIMING=1 is set: ESLint prints its rules' timing table as its process exits/.test(timing.fallback), JSON.stringify(timing));
  });

  it('a staged tsc step behind `env NODE_OPTIONS=…` runs warm with the command\'s verdict, failures and identity; its worker has the variable', async () => {
    const TSC = { name: 'tsc', command: 'env NODE_OPTIONS=--max-old-space-size=3000 tsc --noEmit -p tsconfig.json' };
    const v = new Verifier({ root: s.project, checks: [TSC], parallel: false, outputLimitKb: 256, staged: true, storageDir: s.storage });
    try {
      const v0 = await v.verify(undefined, { previous: null });
      v.warm();
      const step = await v.verify(undefined, { previous: v0, changed: [] });
      assert.equal(step.checks[0]!.mode, 'warm', step.checks[0]!.stagedNote);
      assert.match(step.checks[0]!.stagedNote ?? '', /started as the command starts tsc: NODE_OPTIONS=--max-old-space-size=3000/);
      const cold = await new Verifier({ root: s.project, checks: [TSC], parallel: false, outputLimitKb: 256 }).verify();
      assert.equal(cold.green, false);
      assert.equal(step.green, cold.green);
      assert.equal(step.failureHash, cold.failureHash);
      assert.deepEqual(keys(step.failures), keys(cold.failures));
      const workers = liveRecorded(path.join(s.storage, 'processes'));
      assert.equal(workers.length, 1);
      const environ = readFileSync(`/proc/${workers[0]}/environ`, 'utf8').split('\0');
      assert.ok(environ.includes('NODE_OPTIONS=--max-old-space-size=3000'), 'the worker runs with the command\'s NODE_OPTIONS');
    } finally {
      await v.release();
    }
    assert.deepEqual(liveRecorded(path.join(s.storage, 'processes')), []);
  });

  it('`env -i tsc` and a script named tsc run the command in a staged step, saying why, with its verdict', async () => {
    mkdirSync(path.join(s.project, 'scripts'));
    writeFileSync(path.join(s.project, 'scripts', 'tsc'), `#!/bin/sh\nexec "${path.join(REPO, 'node_modules', '.bin', 'tsc')}" "$@"\n`);
    chmodSync(path.join(s.project, 'scripts', 'tsc'), 0o755);
    const nodeDir = path.dirname(process.execPath);
    for (const [command, why] of [[`env -i PATH=${nodeDir}:/usr/bin:/bin ${path.join(REPO, 'node_modules', '.bin', 'tsc')} --noEmit -p tsconfig.json`, /not a tsc call behind launchers only/], ['scripts/tsc --noEmit -p tsconfig.json', /not the workspace's typescript package/]] as const) {
      const checks = [{ name: 'tsc', command }];
      const v = new Verifier({ root: s.project, checks, parallel: false, outputLimitKb: 256, staged: true, storageDir: s.storage });
      try {
        const v0 = await v.verify(undefined, { previous: null });
        v.warm();
        const step = await v.verify(undefined, { previous: v0, changed: [] });
        assert.notEqual(step.checks[0]!.mode, 'warm', command);
        assert.match(step.checks[0]!.stagedNote ?? '', why, command);
        const cold = await new Verifier({ root: s.project, checks, parallel: false, outputLimitKb: 256 }).verify();
        assert.equal(cold.failures.length, 3, `${command}: ${cold.checks[0]!.output ?? ''}`);
        assert.equal(step.failureHash, cold.failureHash, command);
      } finally {
        await v.release();
      }
    }
  });

  it('Vitest\'s typecheck is answered only by a warm tsc started with the same variables as Vitest\'s tsc', async () => {
    const env = checkEnv(s.project);
    const plan = warmTscPlan('env FUG_PROBE=1 tsc --noEmit -p tsconfig.json', s.project, env);
    assert.ok(!('fallback' in plan));
    const w = new WarmTsc({ cwd: s.project, plan, logger: quiet });
    try {
      assert.equal((await w.check(undefined, 60000)).kind, 'result');
      const args = ['--noEmit', '--pretty', 'false', '--incremental', '--tsBuildInfoFile', path.join(s.dir, 'x.tsbuildinfo')];
      const other = await w.checkAs({ cwd: s.project, args, vars: {} }, 60000);
      assert.equal(other.kind, 'mismatch');
      assert.match('reason' in other ? other.reason : '', /starts tsc with FUG_PROBE=1, the asking call with nothing set/);
      const same = await w.checkAs({ cwd: s.project, args, vars: { FUG_PROBE: '1' } }, 60000);
      assert.equal(same.kind, 'result', 'reason' in same ? same.reason : '');
    } finally {
      await w.stop();
    }
  });

  it('`node --max-old-space-size=… node_modules/typescript/bin/tsc`: the worker\'s node runs with the flag, and answers what the command prints', async () => {
    const command = 'node --max-old-space-size=3000 node_modules/typescript/bin/tsc --noEmit -p tsconfig.json';
    const env = checkEnv(s.project);
    const plan = warmTscPlan(command, s.project, env);
    assert.ok(!('fallback' in plan), 'fallback' in plan ? plan.fallback : '');
    const records = path.join(s.dir, 'records');
    const w = new WarmTsc({ cwd: s.project, plan, logger: quiet, recordDir: records });
    try {
      const o = await w.check(undefined, 60000);
      assert.ok(o.kind === 'result');
      const argv = command.split(' ');
      const c = await runCommand({ command, argv, cwd: s.project, timeoutMs: 60000, outputLimitBytes: LIMIT, env });
      assert.equal(o.output, c.output);
      assert.equal(o.exitCode, c.exitCode);
      const [pid] = liveRecorded(records);
      assert.ok(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--max-old-space-size=3000'), 'the worker\'s node has the command\'s flag');
      // The Vitest typecheck's tsc runs by its #! line, without the flag: not answered from here.
      const as = await w.checkAs({ cwd: s.project, args: ['--noEmit', '--pretty', 'false', '--incremental', '--tsBuildInfoFile', path.join(s.dir, 'y.tsbuildinfo')], vars: {} }, 60000);
      assert.equal(as.kind, 'mismatch');
    } finally {
      await w.stop();
    }
  });
});

describe('warm ESLint behind launchers', function () {
  this.timeout(180000);
  let dir: string;
  let cleanup: () => void;
  let linters: WarmLinters;
  const records = (): string => `${dir}-records`;
  const opts = () => ({ cwd: dir, env: checkEnv(dir), timeoutMs: 60000, outputLimitBytes: LIMIT, stdoutLimitBytes: 16 * 1024 * 1024 });

  beforeEach(() => {
    const t = tempTree(
      {
        'package.json': '{ "name": "warm-lint-launch", "private": true, "type": "module" }\n',
        // A config that reads the environment, as many do (process.env.CI, a strictness switch).
        'eslint.config.js': `export default [{ files: ['**/*.js'], languageOptions: { ecmaVersion: 2022, sourceType: 'module' }, rules: { 'no-unused-vars': process.env.LINT_STRICT ? 'error' : 'off' } }];\n`,
        'src/cart.js': 'const unused = 1;\nexport const total = 2;\n',
      },
      'fug-warmlaunch-',
    );
    dir = t.dir;
    cleanup = t.cleanup;
    symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    linters = new WarmLinters({ logger: quiet, recordDir: records() });
  });
  afterEach(async () => {
    await linters.release();
    assert.deepEqual(liveRecorded(records()), [], 'no warm linter left');
    cleanup();
    rmSync(records(), { recursive: true, force: true });
  });

  const cold = (argv: string[]) => runCommand({ command: argv.join(' '), argv, cwd: dir, timeoutMs: 60000, outputLimitBytes: LIMIT, stdoutLimitBytes: 16 * 1024 * 1024, env: checkEnv(dir) });
  const UNUSED = /'unused' is assigned a value but never used/;

  it('`env LINT_STRICT=1 eslint` (a config that reads the variable) runs warm with the command\'s output; the same command without it is another linter', async () => {
    const strict = ['env', 'LINT_STRICT=1', 'eslint', 'src'];
    await linters.prime('lint', strict, opts());
    const w = await linters.run('lint', strict, opts());
    assert.ok(w && 'r' in w, `warm: ${w && 'fallback' in w ? w.fallback : 'not enabled'}`);
    const c = await cold(strict);
    assert.match(c.output, UNUSED, 'the command reports the unused variable under LINT_STRICT=1');
    assert.match(w.r.output, UNUSED, 'so does the warm linter: LINT_STRICT=1 reached it');
    assert.equal(w.r.output, c.output);
    assert.equal(w.r.exitCode, c.exitCode);

    const plain = ['eslint', 'src'];
    const p = await linters.run('lint', plain, opts());
    assert.ok(p && 'r' in p, `warm: ${p && 'fallback' in p ? p.fallback : 'not enabled'}`);
    assert.doesNotMatch(p.r.output, UNUSED, 'the linter started with LINT_STRICT=1 was not reused');
    const pc = await cold(plain);
    assert.equal(p.r.output, pc.output);
    assert.equal(p.r.exitCode, pc.exitCode);
    assert.equal(p.r.exitCode, 0);
  });

  it('`env TIMING=1 eslint` runs the command, which prints ESLint\'s timing table', async () => {
    const timed = ['env', 'TIMING=1', 'LINT_STRICT=1', 'eslint', 'src'];
    await linters.prime('lint', timed, opts());
    const w = await linters.run('lint', timed, opts());
    assert.ok(w && 'fallback' in w && /TIMING=1 is set/.test(w.fallback));
    assert.match((await cold(timed)).output, /^Rule\s+\|\s+Time \(ms\)/m);
    assert.deepEqual(liveRecorded(records()), [], 'no linter was started for it');
  });
});
