// The launcher (core/launch.ts): every refusal kind made by real preflight on real folders (a real
// process holding the lock, a file where the storage folder should be, a checkpoint an interrupted
// run left), each worded by every front end: the CLI (one line, a kind, exit 2), MCP (a tool error)
// and VS Code (a sentence with its fix buttons). Then what a prepared run carries.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpRefusal } from '../../../src/cli/mcpCommand';
import { cliKeyPort } from '../../../src/cli/providers';
import { folderSettingKeys } from '../../../src/cli/workspaceSettings';
import { cliRefusal } from '../../../src/cli/refusals';
import { Checkpoint } from '../../../src/core/edit/checkpoint';
import { RUN_LOCK_DIR_ENV } from '../../../src/core/edit/runLock';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import type { LaunchPorts, LaunchRequest, Refusal, RefusalKind } from '../../../src/core/launch';
import { CHECKS_WHILE_A_RUN_HOLDS, NO_KEYS, prepareChecks, prepareRun } from '../../../src/core/launch';
import { ReplayProvider } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import type { Settings } from '../../../src/core/settings';
import type { TimedEvent } from '../../../src/core/trace/events';
import type { Problem } from '../../../src/vscode/common/fixActions';
import { noChatModel } from '../../../src/vscode/common/fixActions';
import { endpointProblem, refusalProblem } from '../../../src/vscode/common/refusals';
import { calcCheckCommand } from '../../support/checks';
import { copyFixture, REPO } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const CALC_CHECK = { name: 'test', command: calcCheckCommand(), parser: 'tap' as const };

function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('the launcher: one preflight, refusals as values every front end words', function () {
  this.timeout(60_000);
  let s: Scratch;
  let lockDir: string | undefined;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    s = copyFixture('loop/calc');
    lockDir = process.env[RUN_LOCK_DIR_ENV];
    process.env[RUN_LOCK_DIR_ENV] = path.join(s.dir, 'locks');
  });
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    if (lockDir === undefined) delete process.env[RUN_LOCK_DIR_ENV];
    else process.env[RUN_LOCK_DIR_ENV] = lockDir;
    s.cleanup();
  });

  const settings = (over: Partial<Settings> = {}): Settings => ({ ...defaultSettings(), checks: [CALC_CHECK], ...over });

  /** VS Code-like ports: answers carry their sentence with its fix buttons. */
  function ports(o: { settings?: Settings; settingsProblem?: Problem; model?: Problem; onModel?: () => void; keys?: LaunchPorts<Problem>['keys'] } = {}): LaunchPorts<Problem> {
    return {
      settings: () => (o.settingsProblem ? { ok: false, problems: [o.settingsProblem.message], detail: o.settingsProblem } : { ok: true, settings: o.settings ?? settings() }),
      keys: o.keys ?? NO_KEYS,
      model: () => {
        o.onModel?.();
        return o.model ? { ok: false, problem: o.model.message, detail: o.model } : { ok: true, provider: new ReplayProvider({ responses: [] }) };
      },
      workspace: () => new FsWorkspace(s.project),
    };
  }
  const request = (over: Partial<LaunchRequest> = {}): LaunchRequest => ({ root: s.project, frontEnd: 'cli', storageDir: s.storage, ...over });

  async function refusalOf(req: LaunchRequest, p: LaunchPorts<Problem>): Promise<Refusal<Problem>> {
    const launch = await prepareRun(req, p);
    assert.ok(!launch.ok, 'refused');
    return launch.refusal;
  }

  const REMOTE = 'https://models.example.invalid/v1';
  /** The folder's own .vscode/settings.json names a remote endpoint; the owner's key is in the environment. */
  function folderChoosesEndpoint(): { settings: Settings; keys: LaunchPorts<Problem>['keys'] } {
    mkdirSync(path.join(s.project, '.vscode'), { recursive: true });
    writeFileSync(path.join(s.project, '.vscode', 'settings.json'), JSON.stringify({ 'fixUntilGreen.model.baseUrl': REMOTE }));
    const cli = cliKeyPort(() => folderSettingKeys(s.project, {}), { OPENAI_API_KEY: 'sk-owner' });
    // As VS Code's key port does: the refusal carries its "Trust <origin> for this folder" button.
    const keys: LaunchPorts<Problem>['keys'] = (st, own) => {
      const a = cli(st, own);
      return a.ok ? a : { ...a, detail: endpointProblem(a.refusal, s.project) };
    };
    return { settings: settings({ model: { ...defaultSettings().model, provider: 'openai-compatible', id: 'm', baseUrl: REMOTE } }), keys };
  }

  async function holdFolder(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'test', 'support', 'runLockHolder.ts'), s.project], { cwd: REPO, env: process.env, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const rl = createInterface({ input: child.stdout! });
    const line = await new Promise<string>((resolve) => rl.once('line', resolve));
    rl.close();
    assert.equal((JSON.parse(line) as { ok: boolean }).ok, true);
    return child;
  }

  async function interruptedRun(): Promise<void> {
    const ws = new FsWorkspace(s.project);
    const cp = await Checkpoint.create(path.join(s.storage, 'runs', 'killed-run', 'checkpoint'), 'killed-run', s.project);
    const change = [{ path: 'src/calc.ts', content: Buffer.from('export const half = "written";\n') }];
    await cp.beginWrite(ws, change);
    await ws.apply(change);
    await cp.endWrite(true);
  }

  /** Each kind: how real preflight meets it, and what each front end says. */
  const table: {
    kind: RefusalKind;
    make: () => Promise<Refusal<Problem>>;
    cli: { kind: string; message: RegExp; details?: (d: Record<string, unknown>) => void };
    vscode: { message: RegExp; actions: Problem['actions'] };
  }[] = [
    {
      kind: 'settings',
      make: () => refusalOf(request(), ports({ settingsProblem: { message: 'fixUntilGreen.maxSteps must be an integer from 1 to 100; got -1', actions: [{ kind: 'openSetting', setting: 'fixUntilGreen.maxSteps' }] } })),
      cli: { kind: 'usage', message: /^fixUntilGreen\.maxSteps must be an integer from 1 to 100; got -1$/ },
      vscode: { message: /^the run did not start: fixUntilGreen\.maxSteps must be an integer/, actions: [{ kind: 'openSetting', setting: 'fixUntilGreen.maxSteps' }] },
    },
    {
      kind: 'busy',
      make: async () => {
        const child = await holdFolder();
        const r = await refusalOf(request(), ports());
        assert.equal(r.kind === 'busy' && r.holder?.pid, child.pid);
        return r;
      },
      cli: { kind: 'busy', message: /^cannot start another run: run holder-\d+ \(test, pid \d+, started .*\) is running on .*; wait for it to end or stop it$/, details: (d) => assert.equal(typeof (d.holder as { pid: unknown }).pid, 'number') },
      vscode: { message: /^a run of test \(pid \d+, holder-\d+\) is in progress in calc; try again when it is done$/, actions: [] },
    },
    {
      kind: 'endpoint',
      make: () => {
        let built = 0;
        const r = refusalOf(request(), ports({ ...folderChoosesEndpoint(), onModel: () => built++ }));
        return r.then((x) => {
          assert.equal(built, 0, 'refused before any model is built');
          return x;
        });
      },
      cli: {
        kind: 'preflight',
        message: /^refused before any request: .*\.vscode\/settings\.json sets fixUntilGreen\.model\.baseUrl to https:\/\/models\.example\.invalid\/v1, so your openai-compatible key would be sent to models\.example\.invalid, .* If you trust it, name the same URL yourself: --base-url https:\/\/models\.example\.invalid\/v1\.$/,
        details: (d) => assert.deepEqual(d.keyRefused, { file: path.join(s.project, '.vscode', 'settings.json'), setting: 'fixUntilGreen.model.baseUrl', host: 'models.example.invalid' }),
      },
      vscode: { message: /^refused before any request: .*fixUntilGreen\.model\.baseUrl/, actions: [{ kind: 'confirmEndpoint', folder: '', origin: 'https://models.example.invalid' }, { kind: 'openSetting', setting: 'fixUntilGreen.model.baseUrl' }] },
    },
    {
      kind: 'model',
      make: () => refusalOf(request(), ports({ model: noChatModel('') })),
      cli: { kind: 'usage', message: /^No chat model is available in VS Code\.$/ },
      vscode: { message: /^No chat model is available in VS Code\.$/, actions: [{ kind: 'chooseModel' }, { kind: 'openSetting', setting: 'fixUntilGreen.model.provider' }] },
    },
    {
      kind: 'checks',
      make: () => refusalOf(request(), ports({ settings: settings({ checks: [{ name: 'lint', command: 'fug-no-such-linter --fix' }] }) })),
      cli: { kind: 'preflight', message: /check "lint": executable "fug-no-such-linter" not found/ },
      vscode: { message: /^The checks cannot run: check "lint": executable "fug-no-such-linter" not found/, actions: [{ kind: 'openSetting', setting: 'fixUntilGreen.checks' }] },
    },
    {
      kind: 'storage',
      make: () => {
        writeFileSync(path.join(s.dir, 'a-file'), 'x');
        return refusalOf(request({ storageDir: path.join(s.dir, 'a-file', 'storage') }), ports());
      },
      cli: { kind: 'preflight', message: /^the storage folder .*a-file\/storage cannot be written \(ENOTDIR: a part of the path is a file\); set FIX_UNTIL_GREEN_STORAGE or --storage/, details: (d) => assert.equal(d.errno, 'ENOTDIR') },
      vscode: { message: /^the run storage .*a-file\/storage cannot be written \(ENOTDIR\); nothing was started$/, actions: [] },
    },
    {
      kind: 'interrupted',
      make: async () => {
        await interruptedRun();
        return refusalOf(request(), ports());
      },
      cli: { kind: 'preflight', message: /^an interrupted run \(killed-run\) left 1 file\(s\) changed \(src\/calc\.ts\): `fix-until-green revert --cwd .*` restores them$/, details: (d) => assert.equal(d.interruptedRun, 'killed-run') },
      vscode: { message: /^answer Revert or Keep for the interrupted run in calc first; the new run did not start$/, actions: [] },
    },
  ];

  it('the table covers every refusal kind, once', () => {
    const kinds: Record<RefusalKind, true> = { settings: true, busy: true, endpoint: true, model: true, checks: true, storage: true, interrupted: true };
    assert.deepEqual(table.map((r) => r.kind), Object.keys(kinds));
  });

  for (const row of table) {
    it(`${row.kind}: refused before anything is written; the CLI, MCP and VS Code each word it`, async () => {
      const calc = readFileSync(path.join(s.project, 'src', 'calc.ts'), 'utf8');
      const r = await row.make();
      assert.equal(r.kind, row.kind);
      if (row.kind !== 'interrupted') assert.equal(readFileSync(path.join(s.project, 'src', 'calc.ts'), 'utf8'), calc, 'the project is untouched');

      const cli = cliRefusal(r, { what: 'start another run', cwd: s.project });
      assert.equal(cli.exitCode, 2);
      assert.equal(cli.kind, row.cli.kind);
      assert.match(cli.message, row.cli.message);
      assert.doesNotMatch(cli.message, /\n/, 'one line');
      row.cli.details?.(cli.details);

      const mcp = mcpRefusal('fixUntilGreen_fix', r, s.project);
      assert.equal(mcp.isError, true);
      assert.equal(textOf(mcp), `fixUntilGreen_fix did not run: ${cli.message}`);
      assert.deepEqual(mcp.structuredContent, { error: { kind: row.cli.kind, message: cli.message } });

      const vs = refusalProblem(r, { folderName: 'calc', what: 'the run did not start' });
      assert.match(vs.message, row.vscode.message);
      assert.deepEqual(vs.actions, row.vscode.actions.map((a) => (a.kind === 'confirmEndpoint' ? { ...a, folder: s.project } : a)));
    });
  }

  it('refuses in one order, the cheap and writeless first: settings, busy, endpoints, models, checks, storage, interrupted', async () => {
    await holdFolder();
    await interruptedRun();
    let built = 0;
    const broken = { settings: settings({ checks: [{ name: 'lint', command: 'fug-no-such-linter' }] }), model: noChatModel(''), onModel: () => built++ };
    assert.equal((await refusalOf(request(), ports({ ...broken, settingsProblem: { message: 'bad', actions: [] } }))).kind, 'settings');
    assert.equal((await refusalOf(request(), ports(broken))).kind, 'busy');
    assert.equal(built, 0, 'no model is built for a busy folder');
    for (const c of children.splice(0)) {
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await gone;
    }
    const endpoint = folderChoosesEndpoint();
    assert.equal((await refusalOf(request(), ports({ ...broken, keys: endpoint.keys, settings: { ...endpoint.settings, checks: broken.settings.checks } }))).kind, 'endpoint');
    assert.equal(built, 0, 'no model is built for an endpoint the key rule refuses');
    rmSync(path.join(s.project, '.vscode', 'settings.json'));
    assert.equal((await refusalOf(request(), ports(broken))).kind, 'model');
    assert.equal((await refusalOf(request(), ports({ settings: broken.settings }))).kind, 'checks');
    writeFileSync(path.join(s.dir, 'a-file'), 'x');
    assert.equal((await refusalOf(request({ storageDir: path.join(s.dir, 'a-file', 's') }), ports())).kind, 'storage');
    assert.equal((await refusalOf(request(), ports())).kind, 'interrupted');
    assert.ok((await prepareRun(request({ ignoreInterrupted: true }), ports())).ok, '--ignore-interrupted starts anyway');
  });

  it('one table says which front end may check while a run holds the folder', async () => {
    await holdFolder();
    for (const [frontEnd, may] of Object.entries(CHECKS_WHILE_A_RUN_HOLDS)) {
      const launch = await prepareChecks(request({ frontEnd: frontEnd as LaunchRequest['frontEnd'] }), ports());
      assert.equal(launch.ok, may, `${frontEnd} ${may ? 'may' : 'may not'} check while a run holds the folder`);
      if (!launch.ok) assert.equal(launch.refusal.kind, 'busy');
    }
    assert.deepEqual(Object.entries(CHECKS_WHILE_A_RUN_HOLDS).filter(([, may]) => may).map(([f]) => f), ['cli'], 'only a person at a terminal checks beside a run');
  });

  it('the key rule judges the run\'s model and every rung before any is built; a folder-chosen loopback rung is built with no key', async () => {
    mkdirSync(path.join(s.project, '.vscode'), { recursive: true });
    const local = { provider: 'openai-compatible' as const, id: 'm', baseUrl: 'http://127.0.0.1:9/v1' };
    const remote = { provider: 'openai-compatible' as const, id: 'm', baseUrl: REMOTE };
    const keyPort = cliKeyPort(() => folderSettingKeys(s.project, {}), { OPENAI_API_KEY: 'sk-owner' });
    const withheld: [number, boolean][] = [];
    const p = (escalation: Settings['model']['escalation']): LaunchPorts<Problem> => {
      writeFileSync(path.join(s.project, '.vscode', 'settings.json'), JSON.stringify({ 'fixUntilGreen.model.escalation': escalation, 'fixUntilGreen.maxSteps': 50 }));
      return { ...ports({ settings: settings({ maxSteps: 50, model: { ...defaultSettings().model, escalation } }) }), keys: keyPort, model: (_m, rung, _s, w) => (withheld.push([rung, w]), { ok: true, provider: new ReplayProvider({ responses: [] }) }) };
    };
    const r = await refusalOf(request(), p([local, remote]));
    assert.equal(r.kind === 'endpoint' && r.key.setting, 'fixUntilGreen.model.escalation[1]');
    assert.deepEqual(withheld, [], 'nothing built');
    const launch = await prepareRun(request(), p([local]));
    assert.ok(launch.ok);
    assert.deepEqual(withheld, [[0, false], [1, true]], 'the run\'s own (replay) model as set; the folder\'s loopback rung sent no key');
    assert.deepEqual(launch.prepared.notices, [`${path.join(s.project, '.vscode', 'settings.json')} sets fixUntilGreen.maxSteps = 50: it spends more of your money`]);
    // The chat's model stands in for the run's own (@fix): only the rungs are judged.
    writeFileSync(path.join(s.project, '.vscode', 'settings.json'), JSON.stringify({ 'fixUntilGreen.model.baseUrl': REMOTE }));
    const chat = await prepareRun(request({ provider: new ReplayProvider({ responses: [] }) }), { ...ports({ settings: settings({ model: { ...defaultSettings().model, ...remote } }) }), keys: keyPort });
    assert.ok(chat.ok, 'the folder\'s base URL is not the chat model\'s');
  });

  it('prepares once: the run is built from what preflight built, and run-start carries what it found', async () => {
    rmSync(path.join(s.project, 'tsconfig.json'));
    mkdirSync(path.join(s.project, '.vscode'), { recursive: true });
    let models = 0;
    const launch = await prepareRun(request({ frontEnd: 'vscode' }), ports({ onModel: () => models++, settings: settings({ model: { ...defaultSettings().model, escalation: [{ provider: 'replay', id: 'strong.json', baseUrl: '' }] } }) }));
    assert.ok(launch.ok);
    assert.equal(models, 2, 'the run\'s model and one rung, each built once');
    assert.equal(launch.prepared.escalation.length, 1, 'the ladder is handed to the run');
    const events: TimedEvent[] = [];
    const { run, verifier } = launch.prepared.build({ onEvent: (e) => events.push(e) });
    assert.equal(verifier, launch.prepared.checks.verifier, 'the run checks with the verifier preflight built');
    assert.throws(() => launch.prepared.build(), /built once/);
    await run.start();
    const start = events.find((e) => e.type === 'run-start');
    assert.deepEqual(start?.type === 'run-start' && start.preflight, { frontEnd: 'vscode', discovered: false, notes: [], ignoredInterrupted: [] });
    assert.deepEqual(start?.type === 'run-start' && start.ladder, ['replay']);
  });
});
