// The shell's stand-in for a folder's engine: the engine bundle (dist/engine.js: the loop, the
// verifier, the providers, their SDKs, the tokenizer) is loaded the first time a run or a check pass
// asks for it, never at activation. The interrupted-run offer at start-up reads the checkpoints'
// manifests only (core/edit/storedRuns.ts) and loads no engine; the restores themselves (Revert,
// Undo, Keep, the review: restoring.ts) come with the engine, at the first one asked for.
import type { Logger } from '../core/types';
import type { FolderEngine } from './controller';
import type * as FolderEngineModule from './folderEngine';
import type { EngineDeps } from './folderEngine';
import { VscodeWorkspace } from './vscodeWorkspace';

type EngineModule = typeof FolderEngineModule;

let loading: Promise<EngineModule> | undefined;
let loadedAfterMs: number | undefined;
let loaded: EngineModule | undefined;

/**
 * The engine module, loaded once. The shell bundle resolves `./folderEngine` to the separate
 * `engine.js` beside it (esbuild.mjs), so this is where its evaluation happens.
 */
export function loadEngine(logger: Logger): Promise<EngineModule> {
  loading ??= (async () => {
    const t = performance.now();
    const m = await import('./folderEngine');
    loadedAfterMs = performance.now() - t;
    loaded = m;
    // The e2e suite reads this line to tell that a window loaded the engine, and when.
    logger.info(`engine loaded in ${loadedAfterMs.toFixed(1)} ms`);
    return m;
  })();
  // A failed load (a broken install) is retried at the next command rather than remembered.
  loading.catch(() => (loading = undefined));
  return loading;
}

/** The engine module once loaded, else undefined: for what only follows the engine's work (a loop event's log line). */
export function loadedEngine(): EngineModule | undefined {
  return loaded;
}

/** Whether this extension host has loaded the engine bundle (for the e2e suite and the bench). */
export function engineLoaded(): boolean {
  return loadedAfterMs !== undefined;
}

/** A folder's engine that loads the engine bundle at its first run or check pass. */
export function lazyFolderEngine(root: string, storageDir: string, deps: EngineDeps): FolderEngine {
  let real: Promise<FolderEngine> | undefined;
  const engine = (): Promise<FolderEngine> => (real ??= loadEngine(deps.logger).then((m) => m.folderEngine(root, storageDir, deps)));
  return {
    storageDir,
    prepareRun: async (settings, extras, ownWork) => (await engine()).prepareRun(settings, extras, ownWork),
    prepareChecks: async (settings) => (await engine()).prepareChecks(settings),
    workspace: (label: string) => new VscodeWorkspace(root, deps.logger, label),
    restoring: async () => (await engine()).restoring(),
  };
}
