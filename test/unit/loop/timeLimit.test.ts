// The wall-clock time limit aborts the in-flight check or model call and stops within 2 s of the limit.
// Real processes: the hanging check is a real child with a real grandchild, killed for real.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { Run } from '../../../src/core/loop/run';
import { ReplayProvider } from '../../../src/core/model/replay';
import { countTokens } from '../../../src/core/tokens';
import { Verifier } from '../../../src/core/verify/verifier';
import type { Project } from './harness';
import { HangingReplay, makeRun, ofType, project, settings, SilentProvider, SRC, step, traceOf, values } from './harness';

const LIMIT_S = 2;
/** The requirement: the run is over within 2 s of reaching the limit. */
const STOP_WITHIN_MS = 2000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const t0 = Date.now();
  while (!cond() && Date.now() - t0 < ms) await new Promise((r) => setTimeout(r, 25));
  return cond();
}

describe('loop: time limit', function () {
  this.timeout(60000);
  // Loading the tokenizer is seconds of synchronous work on a busy machine; it happens once per
  // process, before any limit matters, and is not what these tests measure.
  before(() => countTokens('warm up'));
  let p: Project;
  beforeEach(() => {
    p = project({ [SRC]: values({ a: 'bad' }) });
  });
  afterEach(() => p.cleanup());

  for (const ignoresTerm of [false, true]) {
    it(`aborts a hanging check${ignoresTerm ? ' that ignores SIGTERM' : ''}, kills its process group, and stops within 2 s`, async () => {
      const pidFile = path.join(p.dir, 'grandchild.pid');
      const script = [
        ignoresTerm ? "process.on('SIGTERM', () => {});" : '',
        "const { spawn } = require('child_process');",
        `const c = spawn(process.execPath, ['-e', ${JSON.stringify(ignoresTerm ? "process.on('SIGTERM',()=>{});setInterval(()=>{},1000)" : 'setInterval(()=>{},1000)')}], { stdio: 'ignore' });`,
        `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));`,
        'setInterval(() => {}, 1000);',
      ].join('\n');
      writeFileSync(path.join(p.root, 'hang.cjs'), script);
      const st = settings({ checks: [{ name: 'hang', command: 'node hang.cjs', timeoutSeconds: 600 }], timeLimitSeconds: LIMIT_S });
      const run = new Run({
        workspace: new FsWorkspace(p.root),
        verifier: new Verifier({ root: p.root, checks: st.checks, parallel: true, outputLimitKb: 64 }),
        provider: new ReplayProvider({ responses: [] }),
        settings: st,
        storageDir: p.storage,
      });
      const t0 = Date.now();
      const r = await run.start();
      const overshoot = Date.now() - t0 - LIMIT_S * 1000;
      assert.equal(r.stopReason, 'time-limit', r.detail);
      assert.match(r.detail, /of the 2 s limit; the in-flight work was aborted/);
      assert.ok(overshoot < STOP_WITHIN_MS, `stopped ${overshoot} ms after the limit`);
      assert.ok(existsSync(pidFile), 'the check really started its grandchild');
      const pid = Number(readFileSync(pidFile, 'utf8'));
      // SIGKILL follows SIGTERM after the runner's grace period, so allow for it.
      assert.equal(await waitFor(() => !alive(pid), 10000), true, `grandchild ${pid} is gone`);
    });
  }

  it('aborts a model call that never answers, even from a provider that ignores the signal', async () => {
    for (const honour of [true, false]) {
      const silent = new SilentProvider(honour);
      const { run } = makeRun(p, silent, { timeLimitSeconds: 1 });
      const t0 = Date.now();
      const r = await run.start();
      const overshoot = Date.now() - t0 - 1000;
      assert.equal(r.stopReason, 'time-limit', `honour=${honour}: ${r.detail}`);
      assert.ok(overshoot < STOP_WITHIN_MS, `honour=${honour}: stopped ${overshoot} ms after the limit`);
      assert.equal(silent.calls, 1);
      assert.equal(r.steps.length, 0);
      const call = ofType(traceOf(r.tracePath), 'model-call')[0]!;
      assert.equal(call.reply, null);
      assert.match(call.error ?? '', /time-limit/);
      assert.equal(p.read(SRC), values({ a: 'bad' }));
    }
  });

  it('stops mid-run when the model stalls at a later step, keeping the best state', async () => {
    p.write(SRC, values({ a: 'bad', b: 'bad' }));
    const provider = new HangingReplay([step({ a: 'bad', b: 'bad' }, { a: 'ok', b: 'bad' })], 2);
    const { run } = makeRun(p, provider, { timeLimitSeconds: 1 });
    const r = await run.start();
    assert.equal(r.stopReason, 'time-limit');
    assert.equal(r.steps.length, 1);
    assert.equal(r.outcome, 'partial');
    assert.equal(p.read(SRC), values({ a: 'ok', b: 'bad' }));
  });
});
