// `fix-until-green run` as a user runs it: a real process, real checks, exit codes and JSON.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, ensureBuilt } from '../../support/cli';
import { copyFixture, treeHash } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';

const TEST = 'test=node --import tsx --test test/calc.test.ts';

describe('fix-until-green run (CLI)', function () {
  let s: Scratch;
  before(() => ensureBuilt());
  beforeEach(() => {
    s = copyFixture('loop/calc');
  });
  afterEach(() => s.cleanup());

  function replayFile(texts: string[]): string {
    const file = path.join(s.dir, 'replay.json');
    writeFileSync(file, JSON.stringify({ responses: texts.map((text) => ({ text, usage: { input: 500, output: 50 } })) }));
    return file;
  }

  it('runs to green and prints the public JSON object', () => {
    const calc = path.join(s.project, 'src/calc.ts');
    const before = readFileSync(calc, 'utf8');
    const after = before.replace(/(mul\(a: number, b: number\): number \{\n {2}return )a \+ b/, '$1a * b');
    const file = replayFile([reply([diffOf('src/calc.ts', before, after)], { status: 'done' })]);
    const r = runCli(['run', '--cwd', s.project, '--model', `replay:${file}`, '--check', TEST, '--storage', s.storage, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    for (const k of ['stopReason', 'outcome', 'detail', 'steps', 'tokensUsed', 'elapsedMs', 'remainingFailures', 'tracePath']) assert.ok(k in out, `has ${k}`);
    assert.equal(out.stopReason, 'green');
    assert.equal(out.outcome, 'fixed');
    assert.equal(out.tokensUsed, 550);
    const steps = out.steps as Record<string, unknown>[];
    assert.equal(steps.length, 1);
    for (const k of ['index', 'failureHash', 'failureCount', 'applied', 'tokens', 'postMortem']) assert.ok(k in steps[0]!, `step has ${k}`);
    assert.ok(existsSync(out.tracePath as string));
  });

  it('--escalate hands a stalled run to the next model; the JSON names each step\'s model and the escalation', () => {
    const calc = path.join(s.project, 'src/calc.ts');
    let before = readFileSync(calc, 'utf8');
    const stuck: string[] = [];
    for (let k = 1; k <= 2; k++) {
      const after = `${before}// note ${k}\n`;
      stuck.push(reply([diffOf('src/calc.ts', before, after)], { postMortem: `note ${k}` }));
      before = after;
    }
    const cheap = replayFile(stuck);
    const strong = path.join(s.dir, 'strong.json');
    const fixed = before.replace(/(mul\(a: number, b: number\): number \{\n {2}return )a \+ b/, '$1a * b');
    writeFileSync(strong, JSON.stringify({ responses: [{ text: reply([diffOf('src/calc.ts', before, fixed)], { status: 'done' }), usage: { input: 500, output: 50 } }] }));
    const r = runCli(['run', '--cwd', s.project, '--model', `replay:${cheap}`, '--escalate', `replay:${strong}`, '--check', TEST, '--storage', s.storage, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { stopReason: string; steps: { model: string }[]; escalations: { step: number; reason: string; from: string; to: string }[]; costUsed: number | null };
    assert.equal(out.stopReason, 'green');
    assert.deepEqual(out.steps.map((x) => x.model), ['replay:replay.json', 'replay:replay.json', 'replay:strong.json']);
    assert.deepEqual(out.escalations.map((e) => [e.step, e.reason, e.from, e.to]), [[2, 'stalled', 'replay:replay.json', 'replay:strong.json']]);
    assert.equal(out.costUsed, null, 'no prices: no money');
  });

  it('--cost-ceiling with a model that has no price does not start (exit 2, preflight-failed)', () => {
    const file = replayFile(['never used']);
    const r = runCli(['run', '--cwd', s.project, '--model', `replay:${file}`, '--cost-ceiling', '0.5', '--check', TEST, '--storage', s.storage, '--json']);
    assert.equal(r.code, 2, r.stderr);
    const out = JSON.parse(r.stdout) as { stopReason: string; detail: string };
    assert.equal(out.stopReason, 'preflight-failed');
    assert.match(out.detail, /fixUntilGreen\.costCeiling is 0\.5 but fixUntilGreen\.model \(replay:.*replay\.json\) has no price: add ".*replay\.json": \{"input": N, "output": N\}/);
  });

  it('exits 1 when the run stops without green', () => {
    const file = replayFile(['STATUS: in_progress\nCONFIDENCE: 0.2\nPOSTMORTEM: no idea\n\nI cannot see the problem.']);
    const r = runCli(['run', '--cwd', s.project, '--model', `replay:${file}`, '--check', TEST, '--storage', s.storage, '--max-steps', '1']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /stop: step-cap/);
  });

  describe('usage and preflight errors: exit 2, one clear line, nothing written', () => {
    const cases: { name: string; args: (file: string) => string[]; setup?: () => void; expect: RegExp }[] = [
      { name: 'a bad --model value', args: () => ['--model', 'gpt-9'], expect: /--model: "gpt-9" is not one of replay:FILE, openai-compatible:ID, anthropic:ID/ },
      { name: 'a missing replay file', args: () => ['--model', 'replay:/nonexistent/replies.json'], expect: /replay file \/nonexistent\/replies\.json cannot be read: ENOENT/ },
      { name: 'a check command that does not exist', args: (f) => ['--model', `replay:${f}`, '--check', 'lint=no-such-linter --fix'], expect: /check "lint": executable "no-such-linter" not found/ },
      { name: 'a bad --max-steps', args: (f) => ['--model', `replay:${f}`, '--max-steps', '0'], expect: /--max-steps: must be an integer from 1 to 100; got 0/ },
      {
        name: 'a settings file that is not JSON',
        args: (f) => ['--model', `replay:${f}`],
        setup: () => {
          mkdirSync(path.join(s.project, '.vscode'), { recursive: true });
          writeFileSync(path.join(s.project, '.vscode', 'settings.json'), '{ "fixUntilGreen.maxSteps": 3,, }');
        },
        expect: /\.vscode\/settings\.json is not valid JSON: PropertyNameExpected at line 1/,
      },
      {
        name: 'a bad setting in the settings file',
        args: (f) => ['--model', `replay:${f}`],
        setup: () => {
          mkdirSync(path.join(s.project, '.vscode'), { recursive: true });
          writeFileSync(path.join(s.project, '.vscode', 'settings.json'), '{ "fixUntilGreen.stallThreshold": 1 }');
        },
        expect: /fixUntilGreen\.stallThreshold must be an integer from 2 to 20; got 1/,
      },
      { name: 'a bad --escalate value', args: (f) => ['--model', `replay:${f}`, '--escalate', 'gpt-9'], expect: /--escalate: "gpt-9" is not one of replay:FILE, openai-compatible:ID, anthropic:ID/ },
      {
        name: 'an escalation model without its key',
        args: (f) => ['--model', `replay:${f}`, '--escalate', 'anthropic:claude-x'],
        expect: /escalation model 1 \(anthropic:claude-x\): .*ANTHROPIC_API_KEY/,
      },
      { name: 'a bad --cost-ceiling', args: (f) => ['--model', `replay:${f}`, '--cost-ceiling', 'lots'], expect: /--cost-ceiling: "lots" is not a number ≥ 0/ },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const file = replayFile(['never used']);
        c.setup?.();
        const hash = treeHash(s.project);
        const r = runCli(['run', '--cwd', s.project, '--check', TEST, '--storage', s.storage, ...c.args(file)]);
        assert.equal(r.code, 2, `stdout: ${r.stdout}\nstderr: ${r.stderr}`);
        assert.match(r.stderr, c.expect);
        assert.equal(r.stderr.trim().split('\n').length, 1, 'one line');
        assert.equal(r.stdout, '');
        assert.equal(treeHash(s.project), hash, 'the project is untouched');
        assert.equal(existsSync(s.storage), false, 'no run storage was written');
      });
    }
  });
});

describe('fix-until-green run after an interrupted run', function () {
  let s: Scratch;
  before(() => ensureBuilt());
  beforeEach(() => {
    s = copyFixture('loop/calc');
  });
  afterEach(() => s.cleanup());

  it('refuses to start until the interrupted run is reverted, then runs', async () => {
    const { Checkpoint } = await import('../../../src/core/edit/checkpoint');
    const { FsWorkspace } = await import('../../../src/core/edit/workspace');
    const ws = new FsWorkspace(s.project);
    const calc = path.join(s.project, 'src/calc.ts');
    const original = readFileSync(calc);
    // What a run killed between writing a file and finishing leaves behind.
    const cp = await Checkpoint.create(path.join(s.storage, 'runs', 'killed-run', 'checkpoint'), 'killed-run', s.project);
    const change = [{ path: 'src/calc.ts', content: Buffer.from('export const half = "written";\n') }];
    await cp.beginWrite(ws, change);
    await ws.apply(change);
    await cp.endWrite(true);

    const file = path.join(s.dir, 'replay.json');
    writeFileSync(file, JSON.stringify({ responses: [{ text: 'STATUS: in_progress\nCONFIDENCE: 0.1\nPOSTMORTEM: x' }] }));
    const args = ['run', '--cwd', s.project, '--model', `replay:${file}`, '--check', TEST, '--storage', s.storage, '--max-steps', '1'];
    const refused = runCli(args);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /an interrupted run \(killed-run\) left 1 file\(s\) changed \(src\/calc\.ts\): `fix-until-green revert --cwd .*` restores them/);
    assert.equal(readFileSync(calc, 'utf8'), 'export const half = "written";\n', 'nothing was touched');

    const reverted = runCli(['revert', '--cwd', s.project, '--storage', s.storage]);
    assert.equal(reverted.code, 0, reverted.stderr + reverted.stdout);
    assert.deepEqual(readFileSync(calc), original);

    const ran = runCli(args);
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(ran.stdout, /stop: step-cap/);
  });
});
