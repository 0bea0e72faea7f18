// Trust under attack (the loop's part): the model cannot rewrite the verifier to get `green`, a
// user's edit during a run is never overwritten by a rollback or the final restore, and a time
// limit beyond setTimeout's range does not fire at once. Real tsc, real node:test, real files.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { Run } from '../../../src/core/loop/run';
import type { Critic } from '../../../src/core/policy/critics';
import { ReplayProvider } from '../../../src/core/model/replay';
import type { ReplayResponse } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import type { Settings } from '../../../src/core/settings';
import { readTrace } from '../../../src/core/trace/trace';
import type { CheckSpec } from '../../../src/core/types';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';

const NPM_TEST: CheckSpec = { name: 'test', command: 'npm test --silent', parser: 'node-test' };
const TEST_CHECK: CheckSpec = { name: 'test', command: 'node --import tsx --test test/calc.test.ts', parser: 'node-test' };
const TSC_CHECK: CheckSpec = { name: 'typecheck', command: 'tsc --noEmit -p .', parser: 'tsc' };
const CALC = 'src/calc.ts';

function start(s: Scratch, responses: ReplayResponse[], over: Partial<Settings>, critics: Critic[] = []): Run {
  const st: Settings = { ...defaultSettings(), checks: [TEST_CHECK], maxSteps: 2, stallThreshold: 3, ...over };
  return new Run({
    workspace: new FsWorkspace(s.project),
    verifier: new Verifier({ root: s.project, checks: st.checks, parallel: st.parallelChecks, outputLimitKb: st.outputLimitKb, flakyReruns: 0 }),
    provider: new ReplayProvider({ responses }),
    settings: st,
    storageDir: s.storage,
    critics,
  });
}

/** A unified diff creating a one-line file. */
const created = (file: string, line: string): string => `--- /dev/null\n+++ b/${file}\n@@ -0,0 +1 @@\n+${line}\n`;

const read = (s: Scratch, rel: string): string => readFileSync(path.join(s.project, rel), 'utf8');

describe('trust: the verifier is not the model\'s to change', function () {
  this.timeout(120_000);
  let s: Scratch;
  beforeEach(() => {
    s = copyFixture('loop/calc');
    const pkg = { name: 'calc-fixture', private: true, version: '1.0.0', scripts: { test: 'node --import tsx --test test/calc.test.ts' } };
    writeFileSync(path.join(s.project, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  });
  afterEach(() => s.cleanup());

  it('refuses an edit of package.json "scripts.test" (to `node -e 0`): the run is not green and the reason names the file and the field', async () => {
    const before = read(s, 'package.json');
    const cheat = before.replace('"node --import tsx --test test/calc.test.ts"', '"node -e 0"');
    const r = await start(s, [{ text: reply([diffOf('package.json', before, cheat)]) }, { text: reply([diffOf('package.json', before, cheat)]) }], { checks: [NPM_TEST] }).start();
    assert.notEqual(r.stopReason, 'green', r.detail);
    assert.notEqual(r.outcome, 'fixed');
    assert.equal(read(s, 'package.json'), before, 'package.json is untouched');
    const verdict = r.steps[0]!.critics.find((c) => c.critic === 'verifier-integrity');
    assert.equal(verdict?.verdict, 'retry');
    assert.match(verdict!.reason, /package\.json .*"scripts" defines how the checks run/);
    assert.match(verdict!.reason, /allowVerifierEdits/);
    assert.equal(r.steps[0]!.applied, false);
    // The model is told why, in the next prompt.
    const calls = readTrace(r.tracePath).filter((e) => e.type === 'model-call');
    assert.match((calls[1] as { prompt?: { user: string } }).prompt!.user, /verifier-integrity: the edit changes the verifier/);
  });

  it('lets package.json change outside the fields that define the checks', async () => {
    const before = read(s, 'package.json');
    const described = before.replace('"version": "1.0.0",', '"version": "1.0.0",\n  "description": "a calculator",');
    const r = await start(s, [{ text: reply([diffOf('package.json', before, described)]) }], { maxSteps: 1 }).start();
    assert.equal(r.steps[0]!.critics.find((c) => c.critic === 'verifier-integrity')?.verdict, 'continue');
    assert.equal(r.steps[0]!.applied, true);
  });

  it('refuses adding "exclude" for the broken file to tsconfig.json; allowVerifierEdits lets it through', async () => {
    const before = read(s, 'tsconfig.json');
    const cheat = before.replace('"include": ["src/**/*.ts", "test/**/*.ts"]', '"include": ["src/**/*.ts", "test/**/*.ts"],\n  "exclude": ["src/calc.ts", "test/**"]');
    writeFileSync(path.join(s.project, CALC), read(s, CALC).replace('return a + b;', 'return a + b + "";'));
    writeFileSync(path.join(s.project, 'src/index.ts'), 'export const ready = true;\n');
    const refused = await start(s, [{ text: reply([diffOf('tsconfig.json', before, cheat)]) }], { checks: [TSC_CHECK], maxSteps: 1 }).start();
    assert.equal(refused.stopReason, 'step-cap', refused.detail);
    assert.equal(read(s, 'tsconfig.json'), before);
    assert.match(refused.steps[0]!.critics.find((c) => c.critic === 'verifier-integrity')!.reason, /tsconfig\.json \(modify\): the checks read it/);

    const allowed = await start(s, [{ text: reply([diffOf('tsconfig.json', before, cheat)]) }], { checks: [TSC_CHECK], maxSteps: 1, allowVerifierEdits: true }).start();
    assert.equal(allowed.stopReason, 'green', 'with the opt-in the edit is applied, and the check really is weakened');
    assert.equal(allowed.steps[0]!.critics.some((c) => c.critic === 'verifier-integrity'), false);
    assert.equal(read(s, 'tsconfig.json'), cheat);
  });

  it('refuses a new runner config (.mocharc.json) and an ESLint config anywhere in the tree', async () => {
    const r = await start(
      s,
      [{ text: reply([created('.mocharc.json', '{ "spec": [] }'), created('src/eslint.config.mjs', 'export default [];')]) }],
      { maxSteps: 1 },
    ).start();
    const reason = r.steps[0]!.critics.find((c) => c.critic === 'verifier-integrity')?.reason ?? `no verdict; feedback: ${r.steps[0]!.feedback}`;
    assert.match(reason, /\.mocharc\.json \(create\)/);
    assert.match(reason, /src\/eslint\.config\.mjs \(create\)/);
  });

  it('stops when what defines the checks changes on disk during a step', async () => {
    const before = read(s, CALC);
    // Runs after the integrity critic's proposal review and before the checks: as if something
    // rewrote the config while the step ran.
    const meddler: Critic = {
      name: 'meddler',
      reviewProposal() {
        writeFileSync(path.join(s.project, 'tsconfig.json'), '{}\n');
        return { verdict: 'continue', reason: 'rewrote tsconfig.json behind the run' };
      },
    };
    const r = await start(s, [{ text: reply([diffOf(CALC, before, before.replace('return a + b;', 'return a + b ;'))]) }], { maxSteps: 3 }, [meddler]).start();
    assert.equal(r.stopReason, 'critic-stop', r.detail);
    assert.match(r.detail, /verifier-integrity.*tsconfig\.json/);
  });
});

describe('trust: nothing of the user\'s is lost', function () {
  this.timeout(120_000);
  let s: Scratch;
  beforeEach(() => {
    s = copyFixture('loop/calc');
  });
  afterEach(() => s.cleanup());

  const USER_TEXT = '// the user saved this while the checks ran\nexport const mine = 1;\n';

  it('a file the user saves while a step\'s checks run is not overwritten by the rollback: the run stops with error naming it', async () => {
    const before = read(s, CALC);
    const userSaves: Critic = {
      name: 'user-saves',
      reviewResult() {
        writeFileSync(path.join(s.project, CALC), USER_TEXT);
        return { verdict: 'retry', reason: 'force a rollback' };
      },
    };
    const r = await start(s, [{ text: reply([diffOf(CALC, before, before.replace('return a + b;', 'return a - b;'))]) }], { maxSteps: 3 }, [userSaves]).start();
    assert.equal(read(s, CALC), USER_TEXT, 'the user\'s bytes are kept');
    assert.equal(r.stopReason, 'error', r.detail);
    assert.match(r.detail, /src\/calc\.ts/);
    assert.notEqual(r.outcome, 'punt');
    assert.equal(r.steps.length, 0, 'the run stopped inside step 1, before recording it as a normal step');
  });

  it('a user edit met by the final restore is kept, and the run does not claim `punt`', async () => {
    const before = read(s, CALC);
    const userSaves: Critic = {
      name: 'user-saves',
      reviewResult() {
        writeFileSync(path.join(s.project, CALC), USER_TEXT);
        return { verdict: 'continue', reason: 'the user saved' };
      },
    };
    // One step that does not help: the stop (step-cap) would restore the original bytes (punt).
    const r = await start(s, [{ text: reply([diffOf(CALC, before, before.replace('return a + b;', 'return b + a;'))]) }], { maxSteps: 1, rollbackRegressions: false }, [userSaves]).start();
    assert.equal(read(s, CALC), USER_TEXT);
    assert.equal(r.stopReason, 'error', r.detail);
    assert.match(r.detail, /^step-cap: .*could not restore .*src\/calc\.ts/);
    assert.deepEqual(r.alsoFired, ['step-cap']);
    assert.notEqual(r.outcome, 'punt');
  });
});

describe('trust: a very long time limit', function () {
  this.timeout(120_000);
  it('timeLimitSeconds beyond setTimeout\'s 24.8 days does not fire at once', async () => {
    const s = copyFixture('loop/calc');
    try {
      const before = read(s, CALC);
      const fixed = before.replace(/(mul\(a: number, b: number\): number \{\n {2}return )a \+ b/, '$1a * b');
      const r = await start(s, [{ text: reply([diffOf(CALC, before, fixed)], { status: 'done' }) }], { timeLimitSeconds: 40 * 24 * 3600 }).start();
      assert.equal(r.stopReason, 'green', r.detail);
    } finally {
      s.cleanup();
    }
  });
});

describe('trust: one run per workspace folder', function () {
  this.timeout(120_000);
  it('a second run on a folder whose run is alive is refused before it verifies or writes, naming the live one; the first goes on', async () => {
    const s = copyFixture('loop/calc');
    try {
      const hold = path.join(s.dir, 'hold');
      writeFileSync(hold, '');
      // The first run's step-0 check waits while the hold file exists.
      const waiting: CheckSpec = { name: 'test', command: `sh -c 'while [ -e ${hold} ]; do sleep 0.05; done; node --import tsx --test test/calc.test.ts'`, parser: 'node-test' };
      const before = read(s, CALC);
      const fixed = before.replace(/(mul\(a: number, b: number\): number \{\n {2}return )a \+ b/, '$1a * b');
      const first = start(s, [{ text: reply([diffOf(CALC, before, fixed)], { status: 'done' }) }], { checks: [waiting] }).start();
      await new Promise((r) => setTimeout(r, 500));
      const second = await start(s, [{ text: 'never used' }], {}).start();
      assert.equal(second.stopReason, 'preflight-failed');
      assert.match(second.detail, new RegExp(`pid ${process.pid}`));
      assert.equal(second.steps.length, 0);
      const { rmSync } = await import('node:fs');
      rmSync(hold);
      const r = await first;
      assert.equal(r.stopReason, 'green', r.detail);
      // The lock is released at the stop: the next run may start.
      const third = await start(s, [{ text: 'never used' }], {}).start();
      assert.equal(third.stopReason, 'green', third.detail);
    } finally {
      s.cleanup();
    }
  });
});

describe('trust: a storage that fills up mid-run', function () {
  this.timeout(180_000);
  it('never throws out of the run, stops with error, and leaves the tree as it was', async function () {
    const { mkdirSync, readdirSync, statSync } = await import('node:fs');
    const { spawnSync } = await import('node:child_process');
    const { treeHash } = await import('../../support/fixtures');
    const s = copyFixture('loop/calc');
    const mnt = path.join(s.dir, 'small');
    mkdirSync(mnt);
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt], { encoding: 'utf8' });
    // Mounting needs privileges a test machine may not grant.
    if (m.status !== 0) {
      s.cleanup();
      this.skip();
    }
    try {
      const original = treeHash(s.project);
      const before = read(s, CALC);
      // A big edit: its snapshot (before/after copies) does not fit in what is left.
      const big = before + `export const padding = '${'x'.repeat(150_000)}';\n`;
      const filler: Critic = {
        name: 'filler',
        reviewProposal() {
          // Fill the storage between the dry run and the write: the checkpoint fits, the snapshot will not.
          const used = readdirSync(mnt, { recursive: true }).reduce((n, f) => n + (statSync(path.join(mnt, String(f))).isFile() ? statSync(path.join(mnt, String(f))).size : 0), 0);
          spawnSync('sh', ['-c', `head -c ${Math.max(0, 256 * 1024 - used - 200 * 1024)} /dev/zero > ${JSON.stringify(path.join(mnt, 'fill'))}`]);
          return { verdict: 'continue', reason: 'filled the disk' };
        },
      };
      const st: Settings = { ...defaultSettings(), checks: [TEST_CHECK], maxSteps: 2, rollbackRegressions: false };
      const run = new Run({
        workspace: new FsWorkspace(s.project),
        verifier: new Verifier({ root: s.project, checks: st.checks, parallel: true, outputLimitKb: 256, flakyReruns: 0 }),
        provider: new ReplayProvider({ responses: [{ text: reply([diffOf(CALC, before, big)]) }, { text: reply([diffOf(CALC, big, before + '\n')]) }] }),
        settings: st,
        storageDir: path.join(mnt, 'storage'),
        critics: [filler],
      });
      const r = await run.start();
      assert.equal(r.stopReason, 'error', r.detail);
      assert.match(r.detail, /ENOSPC/);
      assert.equal(treeHash(s.project), original, 'the model\'s edit was undone');
    } finally {
      spawnSync('umount', [mnt]);
      s.cleanup();
    }
  });
});

describe('trust: what step 0 records as the verifier', () => {
  it('records the scripts a check runs and the configs its flags name, not the files it checks', async () => {
    const { recordVerifier } = await import('../../../src/core/policy/integrity');
    const s = copyFixture('loop/calc');
    try {
      const { mkdirSync } = await import('node:fs');
      mkdirSync(path.join(s.project, 'scripts'));
      writeFileSync(path.join(s.project, 'scripts/check.mjs'), 'process.exit(0);\n');
      writeFileSync(path.join(s.project, 'tsconfig.base.json'), '{ "compilerOptions": {} }\n');
      writeFileSync(path.join(s.project, 'tsconfig.build.json'), '{ "extends": "./tsconfig.base.json" }\n');
      const r = recordVerifier(s.project, [
        { name: 'lint', command: 'eslint src/calc.ts' },
        { name: 'custom', command: 'FOO=1 node scripts/check.mjs && tsc -p tsconfig.build.json' },
      ]);
      const files = [...r.files.keys()];
      for (const f of ['scripts/check.mjs', 'tsconfig.build.json', 'tsconfig.base.json', 'tsconfig.json', 'package.json']) assert.ok(files.includes(f), `${f} recorded: ${files.join(', ')}`);
      assert.ok(!files.includes('src/calc.ts'), 'the code under check is not the verifier');
    } finally {
      s.cleanup();
    }
  });
});

describe('trust: the tool a pnpm .bin wrapper runs is recorded as npm\'s link target is', () => {
  it('records node_modules/.bin/tsc and the package file the wrapper execs', async () => {
    const { recordVerifier } = await import('../../../src/core/policy/integrity');
    const { pnpmLayout } = await import('../../support/pnpmLayout');
    const s = copyFixture('loop/calc');
    try {
      pnpmLayout(s.project, 'typescript', '5.9.3', 'bin/tsc', 'tsc');
      const files = [...recordVerifier(s.project, [{ name: 'tsc', command: 'tsc -p tsconfig.json' }]).files.keys()];
      for (const f of ['node_modules/.bin/tsc', 'node_modules/.pnpm/typescript@5.9.3/node_modules/typescript/bin/tsc']) assert.ok(files.includes(f), `${f} recorded: ${files.join(', ')}`);
    } finally {
      s.cleanup();
    }
  });
});

describe('trust: no process of a check outlives it, step 0 included', function () {
  this.timeout(120_000);
  for (const stagedChecks of [true, false]) {
    it(`a writer the step-0 check left in the background is ended with that check: it never writes mid-run (${stagedChecks ? 'staged' : 'whole'} checks)`, async () => {
      const s = copyFixture('loop/calc');
      try {
        const once = path.join(s.dir, 'started');
        const wrote = path.join(s.dir, 'stray-wrote');
        // Only the first check (step 0) starts it: it waits (up to 10 s) for the model's fix to be
        // written, then appends to that file (a change behind the run's back) and leaves a mark.
        const script = path.join(s.dir, 'check.sh');
        writeFileSync(
          script,
          [
            `if [ ! -e ${once} ]; then`,
            `  touch ${once}`,
            `  ( i=0; while ! grep -q 'a \\* b' src/calc.ts && [ "$i" -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; echo '// stray' >> src/calc.ts; touch ${wrote} ) &`,
            'fi',
            'exec node --import tsx --test test/calc.test.ts',
            '',
          ].join('\n'),
        );
        const check: CheckSpec = { name: 'test', command: `sh ${script}`, parser: 'node-test' };
        const before = read(s, CALC);
        const fixed = before.replace(/(mul\(a: number, b: number\): number \{\n {2}return )a \+ b/, '$1a * b');
        const r = await start(s, [{ text: reply([diffOf(CALC, before, fixed)], { status: 'done' }) }], { checks: [check], stagedChecks }).start();
        await new Promise((res) => setTimeout(res, 1000));
        assert.equal(r.stopReason, 'green', r.detail);
        assert.equal(read(s, CALC), fixed, 'the file holds the fix and nothing else');
        const { existsSync } = await import('node:fs');
        assert.ok(existsSync(once), 'the step-0 check ran the script');
        assert.ok(!existsSync(wrote), 'the background writer never ran to its end');
      } finally {
        s.cleanup();
      }
    });
  }
});
