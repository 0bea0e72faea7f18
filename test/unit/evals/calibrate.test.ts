// Calibration: CONFIDENCE bands against outcomes, and the threshold that keeps false escalations low.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import type { RunSample } from '../../../src/evals/calibrate';
import { calibrate, calibrateTraces, findTraceFiles, sampleOf } from '../../../src/evals/calibrate';
import type { TimedEvent } from '../../../src/core/trace/events';
import type { Project } from '../loop/harness';
import { makeRun, project, SRC, step, values } from '../loop/harness';

function run(id: string, green: boolean, confidences: (number | null)[]): RunSample {
  return {
    trace: `${id}.jsonl`,
    runId: id,
    green,
    stopReason: green ? 'green' : 'stalled',
    steps: confidences.map((c, i) => ({ step: i + 1, confidence: c, green: green && i === confidences.length - 1 })),
  };
}

const SAMPLES: RunSample[] = [
  run('r1', true, [0.3, 0.8]),
  run('r2', true, [0.6, 0.9]),
  run('r3', false, [0.2, 0.1, 0.15]),
  run('r4', false, [0.5, 0.4, null]),
];

describe('calibrate', () => {
  it('counts, per confidence band, the steps whose run went on to green', () => {
    const c = calibrate(SAMPLES, { maxFalseRate: 0.1 });
    const band = (from: number): [number, number] => {
      const b = c.bands.find((x) => x.from === from)!;
      return [b.steps, b.wentGreen];
    };
    assert.equal(c.runs, 4);
    assert.equal(c.greenRuns, 2);
    assert.equal(c.stepsWithConfidence, 9);
    assert.deepEqual(band(0.1), [2, 0]);
    assert.deepEqual(band(0.2), [1, 0]);
    assert.deepEqual(band(0.3), [1, 1], '0.3 falls in 0.3-0.4 despite binary fractions');
    assert.deepEqual(band(0.6), [1, 1]);
    assert.deepEqual(band(0.9), [1, 1]);
    assert.equal(c.bands.find((b) => b.from === 0.7)!.rate, null);
  });

  it('counts escalations per threshold; a green step never escalates', () => {
    const c = calibrate(SAMPLES, { maxFalseRate: 0.1 });
    const row = (t: number): [number, number] => {
      const r = c.thresholds.find((x) => x.threshold === t)!;
      return [r.escalated, r.falseEscalations];
    };
    assert.deepEqual(row(0.05), [0, 0]);
    assert.deepEqual(row(0.15), [1, 0]);
    assert.deepEqual(row(0.3), [1, 0], 'r1 says 0.3, which is not below 0.3');
    assert.deepEqual(row(0.35), [2, 1]);
    assert.deepEqual(row(0.45), [3, 1]);
    assert.deepEqual(row(0.65), [4, 2]);
    assert.deepEqual(row(0.95), [4, 2], "r1's and r2's green last steps (0.8, 0.9) do not count");
  });

  it('recommends the highest threshold within the false-escalation rate, or 0 when none escalates anything', () => {
    assert.equal(calibrate(SAMPLES, { maxFalseRate: 0.1 }).recommended, 0.3);
    assert.equal(calibrate(SAMPLES, { maxFalseRate: 0.5 }).recommended, 0.6);
    assert.equal(calibrate(SAMPLES, { maxFalseRate: 1 }).recommended, 0.95);
    assert.equal(calibrate([run('g', true, [0.05, 0.9])], { maxFalseRate: 0 }).recommended, 0);
  });

  it('leaves out runs that stopped for reasons that hide where they were heading', () => {
    const end = (stopReason: string): TimedEvent[] => [
      { ts: '', type: 'run-end', step: 1, report: { runId: 'x', stopReason, steps: [{ index: 1, confidence: 0.2 }] } } as unknown as TimedEvent,
    ];
    assert.match((sampleOf('t', end('low-confidence')) as { excluded: string }).excluded, /low-confidence/);
    assert.match((sampleOf('t', end('cancelled')) as { excluded: string }).excluded, /cancelled/);
    assert.match((sampleOf('t', []) as { excluded: string }).excluded, /no run-end/);
    assert.equal((sampleOf('t', end('step-cap')) as RunSample).green, false);
  });

  describe('on real traces', () => {
    let p: Project;
    beforeEach(() => {
      p = project({ [SRC]: values({ a: 'bad', b: 'bad' }) });
    });
    afterEach(() => p.cleanup());

    it('reads every trace under a storage directory, skips a corrupt one, and the CLI prints a recommendation', async () => {
      const A = { a: 'bad', b: 'bad' };
      const H = { a: 'ok', b: 'bad' };
      await makeRun(p, [step(A, H, { confidence: 0.7 }), step(H, { a: 'ok', b: 'ok' }, { confidence: 0.9 })]).run.start();
      p.write(SRC, values(A));
      await makeRun(p, [step(A, { a: 'bad', b: 'x' }, { confidence: 0.2 }), step({ a: 'bad', b: 'x' }, { a: 'bad', b: 'y' }, { confidence: 0.1 })], { maxSteps: 2 }).run.start();
      const corrupt = path.join(p.storage, 'runs', 'broken', 'trace.jsonl');
      mkdirSync(path.dirname(corrupt), { recursive: true });
      writeFileSync(corrupt, '{"type":"run-start"}\n{"type": "verify", trunc');

      const files = findTraceFiles([p.storage]);
      assert.equal(files.length, 3);
      const c = calibrateTraces(files, { maxFalseRate: 0 });
      assert.equal(c.runs, 2);
      assert.equal(c.greenRuns, 1);
      assert.equal(c.excluded.length, 1);
      assert.match(c.excluded[0]!.reason, /trace\.jsonl:2: not a JSON trace event/);
      // The green run's only non-green step said 0.7; the failed run said 0.2 and 0.1.
      assert.equal(c.recommended, 0.7);

      const out: string[] = [];
      const err: string[] = [];
      const code = await main(['calibrate', p.storage, '--max-false-rate', '0'], { stdout: (s) => out.push(s), stderr: (s) => err.push(s) });
      assert.equal(code, 0, err.join('\n'));
      const text = out.join('\n');
      assert.match(text, /2 run\(s\), 1 went green; 4 step\(s\) with a readable CONFIDENCE; 1 trace\(s\) left out/);
      assert.match(text, /recommended fixUntilGreen\.escalateBelowConfidence: 0\.7/);
      assert.match(text, /left out .*broken.*not a JSON trace event/);
    });

    it('the CLI refuses bad input with exit 2 and a clear message', async () => {
      const err: string[] = [];
      const io = { stdout: (): void => undefined, stderr: (s: string) => err.push(s) };
      assert.equal(await main(['calibrate'], io), 2);
      assert.equal(await main(['calibrate', p.root, '--max-false-rate', 'lots'], io), 2);
      assert.match(err.join('\n'), /--max-false-rate: "lots" must be a number from 0 to 1/);
      assert.equal(await main(['calibrate', path.join(p.dir, 'nope')], io), 2);
      assert.equal(await main(['calibrate', p.root], io), 2);
      assert.match(err.at(-1)!, /no trace\.jsonl found/);
    });
  });
});
