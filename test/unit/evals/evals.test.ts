// The eval harness and `eval` command on small real scenarios (real mocha), built in a scratch folder.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import type { TimedEvent } from '../../../src/core/trace/events';
import { findScenarioDirs, loadScenario, runScenario, ScenarioError, tallySelfReports, treeDifference, treeHash } from '../../../src/evals/evals';
import { REPO } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';

const SRC = `'use strict';
function double(n) {
  return n + n + 1;
}
module.exports = { double };
`;
const FIXED = SRC.replace('n + n + 1', 'n * 2');
const TEST = `const assert = require('node:assert/strict');
const { double } = require('../src/double');
describe('double', () => {
  it('doubles 4', () => {
    assert.equal(double(4), 8);
  });
});
`;

interface Suite {
  dir: string;
  add(name: string, o: { replies: string[]; expect: unknown; settings?: unknown; src?: string; expected?: Record<string, string> }): string;
  cleanup(): void;
}

function suite(): Suite {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-evals-'));
  // Scenarios reach mocha the way evals/ does: through the nearest node_modules above them.
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return {
    dir,
    add(name, o) {
      const s = path.join(dir, name);
      const write = (rel: string, text: string): void => {
        mkdirSync(path.dirname(path.join(s, rel)), { recursive: true });
        writeFileSync(path.join(s, rel), text);
      };
      write('project/package.json', '{ "name": "double", "private": true }\n');
      write('project/src/double.js', o.src ?? SRC);
      write('project/test/double.test.js', TEST);
      write('project/.vscode/settings.json', JSON.stringify({ 'fixUntilGreen.checks': [{ name: 'test', command: 'mocha test/double.test.js', parser: 'mocha' }] }));
      write('replay.json', JSON.stringify({ responses: o.replies.map((text) => ({ text, usage: { input: 100, output: 20 } })) }));
      write('expect.json', JSON.stringify(o.expect));
      if (o.settings !== undefined) write('settings.json', JSON.stringify(o.settings));
      for (const [rel, text] of Object.entries(o.expected ?? {})) write(path.join('expected', rel), text);
      return s;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const FIX = reply([diffOf('src/double.js', SRC, FIXED)], { status: 'done', confidence: 0.9 });
// A diff against code the file does not have: never applied, nothing written.
const UNAPPLIED = reply([diffOf('src/double.js', "'use strict';\nfunction triple(n) {\n", "'use strict';\nfunction triple(m) {\n")], { confidence: 0.5 });
const WRONG = reply([diffOf('src/double.js', SRC, SRC.replace('n + n + 1', 'n + n + 2'))], { status: 'done', confidence: 0.8 });

describe('eval harness', function () {
  this.timeout(120000);
  let s: Suite;
  beforeEach(() => {
    s = suite();
  });
  afterEach(() => s.cleanup());

  it('runs a scenario on a copy, passes when the stop matches, and leaves the scenario untouched', async () => {
    const dir = s.add('fixes', { replies: [FIX], expect: { stopReason: 'green', steps: 1, outcome: 'fixed' } });
    const before = treeHash(dir);
    const r = await runScenario(loadScenario(dir));
    assert.equal(r.pass, true, r.problem);
    assert.deepEqual(r.got && { reason: r.got.stopReason, steps: r.got.steps }, { reason: 'green', steps: 1 });
    assert.equal(r.tokens, 120);
    assert.deepEqual(r.selfReports.done, { total: 1, agreed: 1 });
    assert.equal(treeHash(dir), before);
  });

  it('reports a miss with what differed, and applies the scenario settings', async () => {
    const dir = s.add('capped', { replies: [WRONG, FIX], expect: { stopReason: 'green', steps: 2 }, settings: { 'fixUntilGreen.maxSteps': 1 } });
    const r = await runScenario(loadScenario(dir));
    assert.equal(r.pass, false);
    assert.equal(r.got?.stopReason, 'step-cap');
    assert.match(r.problem ?? '', /stopped with step-cap, expected green; took 1 step\(s\), expected 2/);
    assert.deepEqual(r.selfReports.done, { total: 1, agreed: 0 });
  });

  it('asserts the final bytes: the expected files after a fix, the original bytes after a punt', async () => {
    const fixed = s.add('fixed-bytes', { replies: [FIX], expect: { stopReason: 'green', steps: 1, outcome: 'fixed', finalBytes: 'expected' }, expected: { 'src/double.js': FIXED } });
    const r = await runScenario(loadScenario(fixed));
    assert.equal(r.pass, true, r.problem);
    const punt = s.add('punt-bytes', { replies: [UNAPPLIED], expect: { stopReason: 'step-cap', steps: 1, outcome: 'punt', finalBytes: 'original' }, settings: { 'fixUntilGreen.maxSteps': 1 } });
    const p = await runScenario(loadScenario(punt));
    assert.equal(p.pass, true, p.problem);
  });

  it('a workspace that does not hold the bytes it should is a miss naming the file and the first line that differs', async () => {
    const dir = s.add('kept-fix', { replies: [FIX], expect: { stopReason: 'green', steps: 1, outcome: 'fixed', finalBytes: 'original' } });
    const r = await runScenario(loadScenario(dir));
    assert.equal(r.pass, false);
    assert.equal(r.got?.stopReason, 'green');
    assert.match(r.problem ?? '', /the workspace does not hold the original bytes: src\/double\.js differs at line 3: expected "  return n \+ n \+ 1;", got "  return n \* 2;"/);
    const other = s.add('other-fix', { replies: [FIX], expect: { stopReason: 'green', steps: 1, finalBytes: 'expected' }, expected: { 'src/double.js': SRC.replace('n + n + 1', 'n << 1') } });
    assert.match((await runScenario(loadScenario(other))).problem ?? '', /does not hold the expected files: src\/double\.js differs at line 3/);
  });

  it('compares whole trees: a missing or an added file differs too', () => {
    const t = (o: Record<string, string>): Map<string, Buffer> => new Map(Object.entries(o).map(([k, v]) => [k, Buffer.from(v)]));
    assert.equal(treeDifference(t({ a: '1', b: '2' }), t({ b: '2', a: '1' })), undefined);
    assert.equal(treeDifference(t({ a: '1', b: '2' }), t({ a: '1', c: '3' })), 'b is missing; c was added');
    assert.equal(treeDifference(t({ a: '1\n2' }), t({ a: '1\n3' })), 'a differs at line 2: expected "2", got "3"');
  });

  it('names every problem in a malformed scenario', () => {
    const bad = (expect: unknown): string => {
      const dir = s.add(`bad-${Math.random().toString(36).slice(2)}`, { replies: [], expect });
      try {
        loadScenario(dir);
        return 'loaded';
      } catch (e) {
        assert.ok(e instanceof ScenarioError);
        return (e as Error).message;
      }
    };
    assert.match(bad({ stopReason: 'finished', steps: 1 }), /expect\.json: "stopReason" must be a stop reason id; got "finished"/);
    assert.match(bad({ stopReason: 'green', steps: -1 }), /"steps" must be a whole number/);
    assert.match(bad({ stopReason: 'green', steps: 1, outcome: 'great' }), /"outcome" must be one of fixed, partial, uncertain, punt/);
    assert.match(bad([1, 2]), /must hold a JSON object/);
    assert.match(bad({ stopReason: 'green', steps: 1, finalBytes: 'best' }), /"finalBytes" must be one of original, expected; got "best"/);
    assert.match(bad({ stopReason: 'green', steps: 1, finalBytes: 'expected' }), /"finalBytes": "expected" needs the files in .*expected/);
    const stray = s.add('stray-expected', { replies: [], expect: { stopReason: 'green', steps: 1 }, expected: { 'src/double.js': FIXED } });
    assert.throws(() => loadScenario(stray), /expected is there but "finalBytes" is not "expected"/);
    const dir = s.add('broken-json', { replies: [], expect: {} });
    writeFileSync(path.join(dir, 'expect.json'), '{ "stopReason": ');
    assert.throws(() => loadScenario(dir), /is not valid JSON/);
    rmSync(path.join(dir, 'project'), { recursive: true });
    assert.throws(() => loadScenario(dir), /project is missing/);
  });

  it('finds scenarios given one by one or as a folder, and refuses anything else', () => {
    const a = s.add('a', { replies: [], expect: { stopReason: 'green', steps: 0 } });
    const b = s.add('b', { replies: [], expect: { stopReason: 'green', steps: 0 } });
    assert.deepEqual(findScenarioDirs([s.dir]), [a, b]);
    assert.deepEqual(findScenarioDirs([b, a, b]), [b, a]);
    assert.throws(() => findScenarioDirs([path.join(a, 'project')]), /neither a scenario \(no expect\.json\) nor a folder of scenarios/);
    assert.throws(() => findScenarioDirs([path.join(a, 'expect.json')]), /is not a directory/);
  });

  it('tallies how often STATUS done and blocked agreed with the verifier', () => {
    const ev = (status: string, agreed: boolean | null): TimedEvent => ({ ts: '', type: 'self-report', step: 1, status, agreed } as unknown as TimedEvent);
    const t = tallySelfReports([ev('done', true), ev('done', false), ev('blocked', true), ev('in_progress', null)]);
    assert.deepEqual(t, { done: { total: 2, agreed: 1 }, blocked: { total: 1, agreed: 1 } });
  });

  it('the eval command prints the table and self-report accuracy, and exits 1 on any miss', async () => {
    s.add('good', { replies: [FIX], expect: { stopReason: 'green', steps: 1 } });
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (x: string) => out.push(x), stderr: (x: string) => err.push(x) };
    assert.equal(await main(['eval', s.dir], io), 0, err.join('\n'));
    assert.match(out[0]!, /^scenario\s+expected\s+got\s+steps\s+tokens\s+pass$/);
    assert.match(out[1]!, /^good\s+green\s+green\s+1\/1\s+120\s+ok$/);
    assert.match(out.join('\n'), /1\/1 scenarios passed/);
    assert.match(out.join('\n'), /STATUS done confirmed green 1\/1 \(100%\)/);

    s.add('miss', { replies: [WRONG], expect: { stopReason: 'green', steps: 1 }, settings: { 'fixUntilGreen.maxSteps': 1 } });
    out.length = 0;
    assert.equal(await main(['eval', s.dir], io), 1);
    assert.match(out.join('\n'), /miss\s+green\s+step-cap\s+1\/1\s+120\s+MISS/);
    assert.match(out.join('\n'), /1\/2 scenarios passed/);
    assert.match(out.join('\n'), /STATUS done confirmed green 1\/2 \(50%\)/);

    assert.equal(await main(['eval'], io), 2);
    assert.equal(await main(['eval', path.join(s.dir, 'nowhere')], io), 2);
    assert.match(err.at(-1)!, /is not a directory/);
  });
});

describe('the scenarios in evals/', () => {
  // The suite's worth is in what it asserts: every scenario says how its run ends and, when the run
  // does not go green, what the workspace is left holding (punt, keep-best, keep-last, revert).
  const dirs = findScenarioDirs([path.join(REPO, 'evals')]);

  it('every scenario states its outcome, and every stop short of green the workspace\'s final bytes', () => {
    assert.ok(dirs.length >= 19, `only ${dirs.length} scenarios found`);
    for (const dir of dirs) {
      const { name, expect } = loadScenario(dir);
      assert.ok(expect.outcome !== undefined, `${name}: expect.json states no "outcome"`);
      assert.equal(expect.outcome === 'fixed', expect.stopReason === 'green', `${name}: outcome ${expect.outcome} with stop ${expect.stopReason}`);
      if (expect.stopReason !== 'green') assert.ok(expect.finalBytes !== undefined, `${name}: expect.json states no "finalBytes"`);
      if (expect.outcome === 'punt') assert.equal(expect.finalBytes, 'original', `${name}: a punt restores the original bytes`);
    }
  });

  it('covers every onStop choice with a run that improved something', () => {
    const kept = new Set(dirs.map((d) => loadScenario(d)).filter((x) => x.expect.outcome === 'partial').map((x) => String(x.settings.onStop ?? 'keep-best')));
    assert.deepEqual([...kept].sort(), ['keep-best', 'keep-last', 'revert']);
  });
});
