// The one engine factory every front end builds through: checks configured or discovered, the
// verifier over them, and a run that records them, on a real project with a real `node` check.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { checkProblems, createCheckEngine, createRunEngine, EngineConfigError } from '../../../src/core/engine';
import { ReplayProvider } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import type { Settings } from '../../../src/core/settings';
import type { Logger } from '../../../src/core/types';
import { diffOf, reply } from '../../support/replies';

// A check that prints TAP: `value` must read `ok`.
const CHECK = `const ok = require('fs').readFileSync('value.txt', 'utf8').trim() === 'ok';
console.log('TAP version 13\\n1..1\\n' + (ok ? 'ok' : 'not ok') + ' 1 - value is ok');
process.exit(ok ? 0 : 1);
`;

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (m: string): void => void lines.push(m);
  return { lines, info: log, debug: log, warn: log, error: log };
}

describe('engine factory', function () {
  this.timeout(60000);
  let dir: string;
  let root: string;
  let storageDir: string;
  const settings = (over: Partial<Settings> = {}): Settings => ({ ...defaultSettings(), ...over });
  const configured = (): Settings => settings({ checks: [{ name: 'value', command: 'node check.cjs', parser: 'tap' }] });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-engine-'));
    root = path.join(dir, 'project');
    storageDir = path.join(dir, 'storage');
    mkdirSync(root);
    writeFileSync(path.join(root, 'check.cjs'), CHECK);
    writeFileSync(path.join(root, 'value.txt'), 'bad\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('builds the verifier over the configured checks, with the settings\' flake re-runs', async () => {
    const e = createCheckEngine({ root, settings: { ...configured(), flakyReruns: 0 }, storageDir });
    assert.equal(e.discovered, false);
    assert.deepEqual(e.notes, []);
    assert.deepEqual(e.checks.map((c) => c.name), ['value']);
    assert.equal(checkProblems(e), undefined);
    const v = await e.verifier.verify();
    assert.equal(v.green, false);
    assert.equal(v.failures.length, 1);
    // Failures that changed are re-run once by default; the setting turned that off.
    writeFileSync(path.join(root, 'value.txt'), 'ok\n');
    const w = await e.verifier.verify();
    assert.equal(w.green, true);
    assert.equal(w.checks[0]!.runs ?? 1, 1);
  });

  it('discovers checks when none are configured and says so through the logger it is given', () => {
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ scripts: { test: 'node --test' } }));
    const logger = recordingLogger();
    const e = createCheckEngine({ root, settings: settings(), storageDir, logger });
    assert.equal(e.discovered, true);
    assert.deepEqual(e.checks.map((c) => c.name), ['test']);
    assert.ok(e.notes.length > 0);
    assert.ok(logger.lines.some((l) => /checks discovered in .*test \(npm test --silent\)/.test(l)), logger.lines.join('\n'));
  });

  it('a folder with nothing to check is a typed configuration error naming what discovery looked for', () => {
    const e = createCheckEngine({ root, settings: settings(), storageDir });
    const err = checkProblems(e);
    assert.ok(err instanceof EngineConfigError);
    assert.equal(err.code, 'checks');
    assert.match(err.problems[0]!, /no checks configured or discovered/);
    assert.ok(err.problems.length > 1, 'the discovery notes follow the problem');
    assert.equal(err.message, err.problems.join('; '));
  });

  it('a missing executable is a configuration error too', () => {
    const e = createCheckEngine({ root, settings: settings({ checks: [{ name: 'x', command: 'no-such-tool-fug --run' }] }), storageDir });
    assert.match(checkProblems(e)?.message ?? '', /check "x": executable "no-such-tool-fug" not found/);
  });

  it('builds a run that goes green through the real verifier and records the checks it used', async () => {
    const provider = new ReplayProvider({ responses: [{ text: reply([diffOf('value.txt', 'bad\n', 'ok\n')], { status: 'done', confidence: 0.9 }) }] }, 'replay:test');
    const events: string[] = [];
    const { run, checks } = createRunEngine({ root, settings: configured(), storageDir, workspace: new FsWorkspace(root), provider, onEvent: (e) => events.push(e.type) });
    assert.deepEqual(checks.map((c) => c.name), ['value']);
    const r = await run.start();
    assert.equal(r.stopReason, 'green', r.detail);
    assert.equal(readFileSync(path.join(root, 'value.txt'), 'utf8'), 'ok\n');
    assert.ok(events.includes('run-end'));
    const start = readFileSync(r.tracePath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; settings?: Settings }).find((e) => e.type === 'run-start');
    assert.deepEqual(start?.settings?.checks.map((c) => c.name), ['value']);
  });

  it('a missing provider stops the run at preflight with its problem and the discovery notes, never calling a model', async () => {
    const { run } = createRunEngine({ root, settings: settings(), storageDir, workspace: new FsWorkspace(root), provider: { problem: 'no model: set fixUntilGreen.model.id' } });
    const r = await run.start();
    assert.equal(r.stopReason, 'preflight-failed');
    assert.match(r.detail, /no model: set fixUntilGreen\.model\.id/);
    assert.match(r.detail, /no checks configured or discovered/);
    assert.match(r.detail, /no tsconfig\.json|tsconfig/i);
    assert.equal(r.tokensUsed, 0);
  });
});
