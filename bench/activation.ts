// Loads the extension bundle in plain Node with a `vscode` stub that only records calls, and times
// require + activate, the way VS Code's extension host starts it.
import Module from 'node:module';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

type AnyFn = (...args: unknown[]) => unknown;

export const VSCODE_API_NAMES = [
  'window', 'workspace', 'commands', 'languages', 'lm', 'env', 'extensions', 'l10n', 'debug', 'tasks', 'authentication', 'chat', 'tests',
  'Uri', 'EventEmitter', 'Disposable', 'StatusBarAlignment', 'ThemeColor', 'ThemeIcon', 'MarkdownString', 'ProgressLocation',
  'Range', 'Position', 'Selection', 'Diagnostic', 'DiagnosticSeverity', 'WorkspaceEdit', 'ViewColumn', 'CancellationTokenSource',
  'LanguageModelChatMessage', 'LanguageModelTextPart', 'LanguageModelError', 'ConfigurationTarget', 'RelativePattern', 'FileType',
  'TextEdit', 'LogLevel', 'ExtensionMode', 'QuickPickItemKind', 'CancellationError', 'FileSystemError', 'TestRunRequest', 'TestMessage', 'Location', 'TestRunProfileKind',
];

/** A stub whose every property is another stub and every call is recorded and returns a stub. */
export function recorder(calls: string[], name = 'vscode'): unknown {
  const fn = function () {
    return undefined;
  } as unknown as AnyFn;
  return new Proxy(fn, {
    get(_t, prop) {
      if (prop === 'then') return undefined; // not a thenable
      if (prop === Symbol.toPrimitive) return () => name;
      if (prop === Symbol.iterator) return function* () {};
      return recorder(calls, `${name}.${String(prop)}`);
    },
    set() {
      return true; // assignments (item.text = ...) are accepted and forgotten
    },
    defineProperty() {
      return true;
    },
    apply() {
      calls.push(name);
      return recorder(calls, `${name}()`);
    },
    construct() {
      calls.push(`new ${name}`);
      return recorder(calls, `new ${name}`) as object;
    },
  });
}

export interface ActivationFigures {
  timesMs: number[];
  calls: number;
  commands: number;
  /** The files beside the bundle that Node had loaded when the last activation returned (the shell's engine.js must not be one). */
  siblingsLoaded: string[];
}

/** A workspace for the activation: its folders and the extension's workspace storage (else stubs). */
export interface ActivationWorkspace {
  folders: string[];
  storageDir: string;
}

/**
 * `settle`: awaited after the last activation, before the loaded files are listed (work activation
 * started without awaiting, e.g. the interrupted-run offer); it is given the calls recorded so far.
 */
export async function activationFigures(bundle: string, loads: number, ws?: ActivationWorkspace, settle?: (calls: string[]) => Promise<void>): Promise<ActivationFigures> {
  const req = createRequire(bundle);
  const resolved = req.resolve(bundle);
  const M = Module as unknown as { _resolveFilename: AnyFn; _cache: Record<string, unknown> };
  const orig = M._resolveFilename;
  const stubPath = path.join(path.dirname(resolved), '__vscode_stub__.js');
  let calls: string[] = [];
  M._resolveFilename = function (this: unknown, request: unknown, ...rest: unknown[]) {
    if (request === 'vscode') return stubPath;
    return orig.call(this, request, ...rest);
  } as AnyFn;
  const times: number[] = [];
  try {
    for (let i = 0; i < loads; i++) {
      calls = [];
      for (const k of Object.keys(M._cache)) if (k === resolved || k === stubPath) delete M._cache[k];
      const stubModule = new Module(stubPath);
      // A plain object with the API's namespaces as own properties, as bundlers copy them.
      const api: Record<string, unknown> = {};
      for (const k of VSCODE_API_NAMES) api[k] = recorder(calls, `vscode.${k}`);
      if (ws) {
        const folders = ws.folders.map((f, index) => ({ uri: { fsPath: f, scheme: 'file', toString: () => `file://${f}` }, name: path.basename(f), index }));
        const workspace = api.workspace as Record<string | symbol, unknown>;
        api.workspace = new Proxy({}, { get: (_t, p) => (p === 'workspaceFolders' ? folders : workspace[p]) });
      }
      stubModule.exports = api;
      (stubModule as unknown as { loaded: boolean }).loaded = true;
      M._cache[stubPath] = stubModule;
      const context = {
        subscriptions: [] as unknown[],
        extensionUri: recorder(calls, 'context.extensionUri'),
        extensionPath: path.dirname(path.dirname(resolved)),
        storageUri: ws ? { fsPath: ws.storageDir, scheme: 'file' } : recorder(calls, 'context.storageUri'),
        globalStorageUri: recorder(calls, 'context.globalStorageUri'),
        logUri: recorder(calls, 'context.logUri'),
        secrets: recorder(calls, 'context.secrets'),
        workspaceState: recorder(calls, 'context.workspaceState'),
        globalState: recorder(calls, 'context.globalState'),
        extensionMode: 1,
        asAbsolutePath: (p: string) => path.join(path.dirname(path.dirname(resolved)), p),
      };
      const t = performance.now();
      const ext = req(resolved) as { activate: (c: unknown) => unknown };
      await Promise.resolve(ext.activate(context)).catch(() => undefined);
      times.push(performance.now() - t);
    }
    await settle?.(calls);
  } finally {
    M._resolveFilename = orig;
  }
  const dir = path.dirname(resolved);
  const siblingsLoaded = Object.keys(M._cache).filter((k) => path.dirname(k) === dir && k !== resolved && k !== stubPath).map((k) => path.basename(k));
  return { timesMs: times, calls: calls.length, commands: calls.filter((c) => c.endsWith('registerCommand')).length, siblingsLoaded };
}
