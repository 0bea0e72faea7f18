// The guard of issue 16: the extension's shell bundle stays small and never reaches the engine
// statically (read from esbuild's metafile of the real build options), activating it loads no
// engine file, and the CLI's commands without a model start without the SDKs or the tokenizer.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { activationFigures } from '../../../bench/activation';
import { Checkpoint } from '../../../src/core/edit/checkpoint';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { nodeTargets, SHELL_BUDGET_BYTES } from '../../../esbuild.mjs';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { REPO } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';

type Metafile = esbuild.Metafile;
type Output = Metafile['outputs'][string];

/**
 * What the shell must never bundle: the engine's layers, the providers, every npm package, and the
 * code that writes and restores a run's files (Revert, Undo, Keep load it with the engine; the
 * interrupted-run offer at start-up reads manifests only: core/edit/storedRuns.ts).
 */
const NOT_IN_SHELL = [
  /^node_modules\//,
  /^src\/core\/(loop|model|verify|policy|trace|bench)\//,
  /^src\/core\/(engine|tokens|atomicWrite)\.ts$/,
  /^src\/core\/edit\/(checkpoint|restore|failedWrite)\.ts$/,
  /^src\/vscode\/(folderEngine|modelProvider|lmProvider|benchRun|restoring)\.ts$/,
];
const SDKS = /node_modules\/(openai|@anthropic-ai\/sdk|gpt-tokenizer)\//;

describe('bundles: the shell, the engine apart (issue 16)', function () {
  this.timeout(180000);
  let dir: string;
  const outputs = new Map<string, Output>();

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-shell-'));
    // The production options (minified), as the .vsix ships them.
    for (const t of nodeTargets({ metafile: true, minify: true, sourcemap: false, absWorkingDir: REPO, logLevel: 'silent' })) {
      const outfile = path.join(dir, path.basename(t.outfile));
      const r = await esbuild.build({ ...t, outfile });
      const out = Object.values(r.metafile!.outputs).find((o) => o.entryPoint !== undefined)!;
      outputs.set(path.basename(t.outfile), out);
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function bundled(name: string): string[] {
    const out = outputs.get(name);
    assert.ok(out, `${name} was built`);
    return Object.keys(out.inputs);
  }

  it(`keeps the shell bundle under ${SHELL_BUDGET_BYTES / 1024} KiB`, () => {
    const bytes = outputs.get('extension.js')!.bytes;
    assert.ok(bytes <= SHELL_BUDGET_BYTES, `dist/extension.js is ${bytes} bytes, over its budget of ${SHELL_BUDGET_BYTES}`);
  });

  it('bundles none of the engine, the providers or any npm package into the shell, and reaches only engine.js', () => {
    const wrong = bundled('extension.js').filter((f) => NOT_IN_SHELL.some((re) => re.test(f)));
    assert.deepEqual(wrong, [], 'the shell imports the engine statically');
    const imports = outputs.get('extension.js')!.imports.filter((i) => i.path !== 'vscode' && !i.path.startsWith('node:'));
    // A require-call: the shell's import() is lowered to require for the extension host; that it
    // runs only at the first run or check pass is the next test's (activation loads no engine.js).
    assert.deepEqual(imports.map((i) => i.path), ['./engine.js'], 'the shell reaches only engine.js');
    // The engine bundle is where the providers went.
    assert.ok(bundled('engine.js').some((f) => f.startsWith('src/core/loop/')));
  });

  it('activating the shell loads no file beside it (no engine.js, no tokenizer.js)', async () => {
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    const a = await activationFigures(path.join(dir, 'extension.js'), 1);
    assert.ok(a.commands > 5, `activation registered the commands (${a.commands})`);
    assert.deepEqual(a.siblingsLoaded.filter((f) => f.endsWith('.js')), []);
  });

  it("offers an interrupted run's recovery at startup without loading the engine", async () => {
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    const folder = path.join(dir, 'ws');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'a.ts'), 'export const a = 2;\n');
    const storageRoot = path.join(dir, 'storage');
    // The folder's storage as the extension names it (src/vscode/folders.ts), with an unfinished checkpoint.
    const folderStorage = path.join(storageRoot, `ws-${createHash('sha256').update(folder).digest('hex').slice(0, 12)}`);
    const cp = await Checkpoint.create(path.join(folderStorage, 'runs', 'r1', 'checkpoint'), 'r1', folder);
    await cp.saveOriginals(new FsWorkspace(folder), [{ path: 'a.ts', content: new TextEncoder().encode('export const a = 1;\n') }]);
    const offered = (calls: string[]): boolean => calls.includes('vscode.window.showWarningMessage');
    const a = await activationFigures(path.join(dir, 'extension.js'), 1, { folders: [folder], storageDir: storageRoot }, async (calls) => {
      for (let i = 0; i < 100 && !offered(calls); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(offered(calls), `the interrupted run was offered; calls: ${calls.join(', ')}`);
    });
    assert.deepEqual(a.siblingsLoaded.filter((f) => f.endsWith('.js')), [], 'the offer read the checkpoint without the engine');
  });

  it('keeps the SDKs and the tokenizer in chunks of their own, out of the engine and every CLI bundle', () => {
    const bundles = [...outputs.keys()];
    for (const b of bundles.filter((n) => n === 'engine.js' || n.startsWith('cli'))) assert.deepEqual(bundled(b).filter((f) => SDKS.test(f)), [], `${b} requires the SDKs' and the tokenizer's chunks instead of bundling them`);
    assert.ok(bundled('openai-sdk.js').some((f) => f.includes('node_modules/openai/')));
    assert.ok(bundled('anthropic-sdk.js').some((f) => f.includes('node_modules/@anthropic-ai/sdk/')));
    assert.ok(bundled('tokenizer.js').some((f) => f.includes('node_modules/gpt-tokenizer/')));
    // Only the SDK is in its chunk: a class of ours bundled twice would break instanceof across the boundary.
    for (const c of ['openai-sdk.js', 'anthropic-sdk.js']) assert.deepEqual(bundled(c).filter((f) => f.startsWith('src/') && !f.startsWith('src/core/model/sdks/')), [], c);
  });

  it("a run over each HTTP provider loads that provider's SDK chunk, and only it, and goes green", async () => {
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    const hook = path.join(dir, 'loaded-sdk.cjs');
    writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(process.env.FUG_LOADED, JSON.stringify(Object.keys(require.cache).map((k) => require('node:path').basename(k)))));\n`);
    const answer = reply([diffOf('a.ts', 'export const a = 1;\n', 'export const a = 2;\n')]);
    for (const [provider, chunk, other] of [['openai-compatible', 'openai-sdk.js', 'anthropic-sdk.js'], ['anthropic', 'anthropic-sdk.js', 'openai-sdk.js']] as const) {
      const project = mkdtempSync(path.join(dir, `http-${provider}-`));
      writeFileSync(path.join(project, 'a.ts'), 'export const a = 1;\n');
      const server = await startFakeOpenAI({ replies: [answer] });
      try {
        const loadedFile = path.join(dir, `loaded-${provider}.json`);
        const args = ['run', '--cwd', project, '--model', `${provider}:m`, '--base-url', provider === 'anthropic' ? server.origin : server.url, '--check', `t=node -e "process.exit(require('fs').readFileSync('a.ts','utf8').includes('2') ? 0 : 1)"`, '--storage', path.join(dir, 'storage'), '--json'];
        // Not spawnSync: the server answers from this process's event loop.
        const r = await execa(process.execPath, ['-r', hook, path.join(dir, 'cli.js'), ...args], { reject: false, env: { FUG_LOADED: loadedFile, FIX_UNTIL_GREEN_LOCK_DIR: path.join(dir, 'locks') } });
        assert.equal(r.exitCode, 0, `${provider}: ${r.stdout}${r.stderr}`);
        assert.equal((JSON.parse(r.stdout) as { stopReason: string }).stopReason, 'green');
        const loaded = JSON.parse(readFileSync(loadedFile, 'utf8')) as string[];
        assert.ok(loaded.includes(chunk) && !loaded.includes(other), `${provider} loaded ${loaded.filter((f) => f.endsWith('.js')).join(', ')}`);
        assert.ok(server.requests.length >= 1, `${provider}: the server was asked`);
      } finally {
        await server.close();
      }
    }
  });

  it('parse and apply load only their own command bundle (no engine, SDK or tokenizer); run loads the model bundle', () => {
    const hook = path.join(dir, 'loaded.cjs');
    // Lists, at exit, the files beside the CLI that Node loaded.
    writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(process.env.FUG_LOADED, JSON.stringify(Object.keys(require.cache).filter((k) => require('node:path').dirname(k) === ${JSON.stringify(dir)}).map((k) => require('node:path').basename(k)))));\n`);
    const project = path.join(dir, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'a.ts'), 'export const a = 1;\n');
    const cli = (args: string[], input: string): { status: number | null; loaded: string[]; out: string } => {
      const loadedFile = path.join(dir, `loaded-${args[0]}.json`);
      const r = spawnSync(process.execPath, ['-r', hook, path.join(dir, 'cli.js'), ...args], { input, encoding: 'utf8', env: { ...process.env, FUG_LOADED: loadedFile } });
      return { status: r.status, loaded: JSON.parse(readFileSync(loadedFile, 'utf8')) as string[], out: r.stdout + r.stderr };
    };
    const parse = cli(['parse', '--parser', 'tsc'], 'src/x.ts(1,1): error TS2322: bad\n');
    assert.equal(parse.status, 0, parse.out);
    assert.deepEqual(parse.loaded.filter((f) => f.endsWith('.js')).sort(), ['cli-parse.js', 'cli.js']);
    const apply = cli(['apply', '--cwd', project, '--dry-run', '--storage', path.join(dir, 'storage')], '```ts a.ts\nexport const a = 2;\n```\n');
    assert.deepEqual(apply.loaded.filter((f) => f.endsWith('.js')).sort(), ['cli-apply.js', 'cli.js'], apply.out);
    // The same hook sees the model bundle load for `run` (it stops at once: no such replay file).
    const run = cli(['run', '--cwd', project, '--model', `replay:${path.join(dir, 'missing.json')}`, '--storage', path.join(dir, 'storage')], '');
    assert.ok(run.loaded.includes('cliModel.js'), `run loaded cliModel.js: ${run.loaded.join(', ')} ${run.out}`);
  });
});
