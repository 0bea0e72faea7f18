// The engine of one workspace folder, built through the core's factory (core/engine.ts) from the
// settings the controller is given: the run, a check-only verifier, and the workspace restores
// write through. The extension supplies only what it alone knows: VS Code's buffers as the
// workspace, the model from its settings and SecretStorage, its log. The controller asks this;
// commands never build the engine.
import { checkProblems, createCheckEngine, createRunEngine } from '../core/engine';
import type { Settings } from '../core/settings';
import type { Logger } from '../core/types';
import type { CheckVerifier, FolderEngine, RunLike, RunWiring } from './controller';
import type { Problem } from './fixActions';
import { createModelProvider } from './modelProvider';
import type { ApiKeys } from './secrets';
import { VscodeWorkspace } from './vscodeWorkspace';

export interface EngineDeps {
  keys: ApiKeys;
  logger: Logger;
}

export function folderEngine(root: string, storageDir: string, deps: EngineDeps): FolderEngine {
  const { logger } = deps;
  return {
    storageDir,
    async createRun(settings: Settings, instruction: string, wiring: RunWiring): Promise<RunLike> {
      const choice = await createModelProvider(settings, root, deps.keys, logger);
      if (!choice.ok) logger.warn(`model: ${choice.problem}`);
      const { run } = createRunEngine({
        root,
        settings,
        storageDir,
        logger,
        workspace: new VscodeWorkspace(root, logger),
        // Without a model the run stops at preflight and says why.
        provider: choice.ok ? choice.provider : { problem: choice.problem },
        frontEnd: 'vscode',
        signal: wiring.signal,
        onEvent: wiring.onEvent,
        ...(instruction ? { instruction } : {}),
      });
      return run;
    },
    async modelProblem(settings: Settings): Promise<Problem | undefined> {
      const choice = await createModelProvider(settings, root, deps.keys, logger);
      return choice.ok ? undefined : choice.fix;
    },
    createVerifier(settings: Settings): CheckVerifier {
      const checks = createCheckEngine({ root, settings, storageDir, logger });
      return {
        // Discovery's notes say what was looked for, next to the preflight problem they explain.
        preflight: () => [...(checkProblems(checks)?.problems ?? [])],
        verify: (signal) => checks.verifier.verify(signal),
      };
    },
    workspace: (label: string) => new VscodeWorkspace(root, logger, label),
  };
}
