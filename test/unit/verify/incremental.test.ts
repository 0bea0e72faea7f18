// A tsc check runs incrementally, its build info in the run's storage, never in the user's tree.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { incrementalTscArgv } from '../../../src/core/verify/tscIncremental';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

describe('incremental tsc', function () {
  this.timeout(180000);

  it('adds --incremental and a build-info path to plain tsc commands only', () => {
    const info = '/store/tsc/x.tsbuildinfo';
    assert.deepEqual(incrementalTscArgv('tsc --noEmit -p .', info), ['tsc', '--noEmit', '-p', '.', '--incremental', '--tsBuildInfoFile', info]);
    assert.deepEqual(incrementalTscArgv('npx tsc --noEmit', info), ['npx', 'tsc', '--noEmit', '--incremental', '--tsBuildInfoFile', info]);
    assert.deepEqual(incrementalTscArgv('node_modules/.bin/tsc -p src', info), ['node_modules/.bin/tsc', '-p', 'src', '--incremental', '--tsBuildInfoFile', info]);
    assert.equal(incrementalTscArgv('tsc -b', info), undefined, 'build mode manages its own build info');
    assert.equal(incrementalTscArgv('tsc --noEmit --watch', info), undefined);
    assert.equal(incrementalTscArgv('tsc --noEmit --tsBuildInfoFile mine.tsbuildinfo', info), undefined, 'the user placed it');
    assert.equal(incrementalTscArgv('tsc --noEmit && echo done', info), undefined, 'a shell line');
    assert.equal(incrementalTscArgv('node build.js tsc', info), undefined);
    // Behind launchers only (staged/launchers): the flags added after tsc reach it as its own.
    assert.deepEqual(incrementalTscArgv('cross-env NODE_OPTIONS=--max-old-space-size=4096 tsc -p .', info), ['cross-env', 'NODE_OPTIONS=--max-old-space-size=4096', 'tsc', '-p', '.', '--incremental', '--tsBuildInfoFile', info]);
    assert.deepEqual(incrementalTscArgv('node node_modules/typescript/bin/tsc --noEmit', info), ['node', 'node_modules/typescript/bin/tsc', '--noEmit', '--incremental', '--tsBuildInfoFile', info]);
    assert.equal(incrementalTscArgv('env -i tsc --noEmit', info), undefined, 'env -i does more than launch');
    assert.equal(incrementalTscArgv('dotenv -- tsc --noEmit', info), undefined, 'a wrapper');
  });

  it('keeps build info in storage, reports the same errors from it, and sees a fix', async () => {
    const s = copyFixture('verify/tsc');
    try {
      const before = filesUnder(s.project).sort();
      const v = new Verifier({ root: s.project, checks: [{ name: 'tsc', command: 'tsc --noEmit -p .' }], parallel: false, outputLimitKb: 256, storageDir: s.storage });
      const first = await v.verify();
      const infos = readdirSync(path.join(s.storage, 'tsc'));
      assert.equal(infos.length, 1);
      assert.match(infos[0]!, /^[0-9a-f]{16}\.tsbuildinfo$/);
      const info = path.join(s.storage, 'tsc', infos[0]!);
      assert.ok(statSync(info).size > 0);
      assert.deepEqual(filesUnder(s.project).sort(), before, 'nothing written in the user\'s tree');
      assert.equal(first.failures.length, 3);

      // Unchanged sources: the errors come back from the build info, identical.
      const second = await v.verify();
      assert.equal(second.failureHash, first.failureHash);

      const cart = path.join(s.project, 'src', 'cart.ts');
      writeFileSync(cart, readFileSync(cart, 'utf8').replace("padStart('8')", 'padStart(8)'));
      const third = await v.verify();
      assert.deepEqual(third.failures.map((f) => f.id), ['TS2322', 'TS2322']);
      assert.deepEqual(filesUnder(s.project).sort(), before);
    } finally {
      s.cleanup();
    }
  });

  it('without a storage directory, or for a shell line, tsc runs as written', async () => {
    const s = copyFixture('verify/tsc');
    try {
      const v = new Verifier({ root: s.project, checks: [{ name: 'tsc', command: 'tsc --noEmit -p . && echo never' }], parallel: false, outputLimitKb: 256, storageDir: s.storage });
      const r = await v.verify();
      assert.equal(r.failures.length, 3);
      assert.ok(!filesUnder(s.dir).some((f) => f.endsWith('.tsbuildinfo')));
    } finally {
      s.cleanup();
    }
  });
});
