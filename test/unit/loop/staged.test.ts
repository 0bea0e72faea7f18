// A whole run with staged checks, on a real project (tsc with checkJs + node:test): a non-final step
// runs tsc warm and the tests targeted, the fixing step is green only from the full checks (the warm
// type check's whole-program answer among them, reused by the gate, which says why), the trace says
// each check's mode, and no warm worker outlives the run. With staging off, the same run
// takes the same steps with full checks every step.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { Run } from '../../../src/core/loop/run';
import { ReplayProvider } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import type { CheckSummary, TimedEvent } from '../../../src/core/trace/events';
import type { CheckSpec } from '../../../src/core/types';
import { findProcesses } from '../../../src/core/verify/containment';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';

const CHECKS: CheckSpec[] = [
  { name: 'tsc', command: 'tsc --noEmit -p tsconfig.json', parser: 'tsc' },
  { name: 'test', command: 'npm test --silent', parser: 'node-test' },
];

function liveRecorded(storage: string): number[] {
  let names: string[] = [];
  try {
    names = readdirSync(path.join(storage, 'processes')).filter((n) => n.endsWith('.json'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return names.flatMap((n) => findProcesses({ marker: n.replace(/\.json$/, '') }));
}

describe('a run with staged checks', function () {
  this.timeout(240000);
  let s: Scratch;

  beforeEach(() => {
    s = copyFixture('staged/node-test');
    writeFileSync(path.join(s.project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', allowJs: true, checkJs: true, strict: false, noEmit: true, skipLibCheck: true, types: [] }, include: ['src/**/*.js'] }));
  });
  afterEach(() => s.cleanup());

  async function run(stagedChecks: boolean): Promise<{ report: Awaited<ReturnType<Run['start']>>; verifies: Extract<TimedEvent, { type: 'verify' }>[] }> {
    const read = (rel: string): string => readFileSync(path.join(s.project, rel), 'utf8');
    const text = read('src/text.js');
    const math = read('src/math.js');
    const responses = [
      { text: reply([diffOf('src/text.js', text, `// shouting is loud\n${text}`)], { postMortem: 'not the text module' }) },
      { text: reply([diffOf('src/math.js', math, math.replace('a - b', 'a + b'))], { status: 'done', postMortem: 'add subtracted' }) },
    ];
    const settings = { ...defaultSettings(), checks: CHECKS, stagedChecks };
    const events: TimedEvent[] = [];
    const verifier = new Verifier({ root: s.project, checks: CHECKS, parallel: true, outputLimitKb: 256, flakyReruns: settings.flakyReruns, staged: stagedChecks, storageDir: s.storage });
    const r = new Run({ workspace: new FsWorkspace(s.project), verifier, provider: new ReplayProvider({ responses }), settings, storageDir: s.storage, onEvent: (e) => events.push(e) });
    const report = await r.start();
    return { report, verifies: events.filter((e): e is Extract<TimedEvent, { type: 'verify' }> => e.type === 'verify') };
  }
  const modes = (cs: CheckSummary[]): string[] => cs.map((c) => `${c.name}:${c.mode}`);

  it('runs non-final steps warm and targeted, decides green in full, and leaves no warm worker', async () => {
    const { report, verifies } = await run(true);
    assert.equal(report.stopReason, 'green', report.detail);
    assert.equal(report.steps.length, 2);
    assert.deepEqual(verifies.map((v) => v.step), [0, 1, 2]);
    assert.deepEqual(modes(verifies[0]!.checks), ['tsc:warm', 'test:full'], 'step 0 builds the warm program as its type check');
    assert.match(verifies[0]!.checks[0]!.note ?? '', /the full type check; kept warm for the steps/);
    assert.deepEqual(modes(verifies[1]!.checks), ['tsc:warm', 'test:targeted'], 'the non-final step');
    assert.match(verifies[1]!.checks[0]!.note ?? '', /re-checked warm/, 'the first step finds the program built');
    assert.equal(verifies[1]!.green, false);
    assert.match(verifies[1]!.checks[1]!.note ?? '', /1 failing/);
    assert.deepEqual(modes(verifies[2]!.checks), ['tsc:warm', 'test:full'], 'green only from the full checks');
    assert.match(verifies[2]!.checks[0]!.note ?? '', /the gate reused this run as the full type check: tsc's own diagnostics for the whole program/, 'the trace says why the warm run is the full type check');
    assert.match(verifies[2]!.checks[1]!.note ?? '', /targeted run passed/);
    // The non-final step saw the same failure as step 0: the identity compares like with like.
    assert.equal(verifies[1]!.failureHash, verifies[0]!.failureHash);
    assert.deepEqual(liveRecorded(s.storage), [], 'the warm type checker is gone once the run stopped');
  });

  it('with staging off takes the same steps and stop, every check in full', async () => {
    const { report, verifies } = await run(false);
    assert.equal(report.stopReason, 'green');
    assert.equal(report.steps.length, 2);
    for (const v of verifies) assert.deepEqual(modes(v.checks), ['tsc:full', 'test:full']);
    assert.equal(verifies[1]!.failureHash, verifies[0]!.failureHash);
  });
});
