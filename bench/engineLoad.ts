// One fresh process's first engine load, as in a fresh window's first Run: requires the engine
// bundle with the recording `vscode` stub, builds the folder's verifier (discovery, preflight) and
// runs its checks once. Prints {loadMs, firstCheckMs, green} as JSON. Usage: engineLoad.ts ENGINE_JS PROJECT
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultSettings } from '../src/core/settings';
import type { FolderEngine } from '../src/vscode/controller';
import type { EngineDeps } from '../src/vscode/folderEngine';
import { recorder, VSCODE_API_NAMES } from './activation';

type AnyFn = (...args: unknown[]) => unknown;

const [engineJs, project] = process.argv.slice(2) as [string, string];
const M = Module as unknown as { _resolveFilename: AnyFn; _cache: Record<string, unknown> };
const stubPath = path.join(path.dirname(engineJs), '__vscode_stub__.js');
const orig = M._resolveFilename;
M._resolveFilename = function (this: unknown, request: unknown, ...rest: unknown[]) {
  return request === 'vscode' ? stubPath : orig.call(this, request, ...rest);
} as AnyFn;
const calls: string[] = [];
const stub = new Module(stubPath);
stub.exports = Object.fromEntries(VSCODE_API_NAMES.map((k) => [k, recorder(calls, `vscode.${k}`)]));
(stub as unknown as { loaded: boolean }).loaded = true;
M._cache[stubPath] = stub;

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };
const t0 = performance.now();
const m = Module.createRequire(import.meta.url)(engineJs) as { folderEngine: (root: string, storage: string, deps: EngineDeps) => FolderEngine };
const loadMs = performance.now() - t0;
const engine = m.folderEngine(project, path.join(os.tmpdir(), `fug-engine-load-${process.pid}`), { keys: {} as EngineDeps['keys'], logger: silent });
const launch = await engine.prepareChecks(() => ({ ok: true, settings: defaultSettings() }));
// The checks are resolved and preflighted: the next thing the run does is start them.
const firstCheckMs = performance.now() - t0;
if (!launch.ok) throw new Error(JSON.stringify(launch.refusal));
const result = await launch.prepared.checks.verifier.verify();
process.stdout.write(JSON.stringify({ loadMs, firstCheckMs, green: result.failures.length === 0 }) + '\n');
