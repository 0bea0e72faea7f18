// The engine of one workspace folder, built through the core's factory (core/engine.ts) from the
// settings the controller is given: the run, a check-only verifier, and the workspace restores
// write through. The extension supplies only what it alone knows: VS Code's buffers as the
// workspace, the model from its settings and SecretStorage, its log. The controller asks this;
// commands never build the engine.
import { checkProblems, createCheckEngine, createRunEngine } from '../core/engine';
import type { ModelProvider } from '../core/model/provider';
import type { Settings } from '../core/settings';
import type { Logger } from '../core/types';
import type { CheckVerifier, FolderEngine, RunExtras, RunLike, RunWiring } from './controller';
import type { Problem } from './fixActions';
import { createLadder, ladderProblem } from './modelProvider';
import type { ApiKeys } from './secrets';
import { VscodeWorkspace } from './vscodeWorkspace';
import type * as vscode from 'vscode';
import { VscodeLmProvider } from './lmProvider';

/** The chat's own model as a run's provider (`@fix` runs with the model picked in the Chat view). */
export function chatModelProvider(model: vscode.LanguageModelChat): ModelProvider {
  return new VscodeLmProvider(model);
}

export interface EngineDeps {
  keys: ApiKeys;
  logger: Logger;
}

export function folderEngine(root: string, storageDir: string, deps: EngineDeps): FolderEngine {
  const { logger } = deps;
  return {
    storageDir,
    async createRun(settings: Settings, instruction: string, wiring: RunWiring, extras?: RunExtras): Promise<RunLike> {
      const ladder = await createLadder(settings, root, deps.keys, logger);
      // The caller's model (the chat's, for @fix) stands in for the first one the settings name;
      // the escalation ladder after it stays the user's.
      const choice = extras?.provider ? ({ ok: true, provider: extras.provider } as const) : ladder.main;
      const { rungs } = ladder;
      if (!choice.ok) logger.warn(`model: ${choice.problem}`);
      for (const r of rungs) if (!r.ok) logger.warn(`model: ${r.problem}`);
      const { run } = createRunEngine({
        root,
        settings,
        storageDir,
        logger,
        workspace: new VscodeWorkspace(root, logger),
        // Without a model the run stops at preflight and says why.
        provider: choice.ok ? choice.provider : { problem: choice.problem },
        escalation: rungs.map((r) => (r.ok ? r.provider : { problem: r.problem })),
        frontEnd: extras?.frontEnd ?? 'vscode',
        signal: wiring.signal,
        onEvent: wiring.onEvent,
        ...(instruction ? { instruction } : {}),
      });
      return run;
    },
    async modelProblem(settings: Settings): Promise<Problem | undefined> {
      return ladderProblem(await createLadder(settings, root, deps.keys, logger), settings);
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

// The gate's results for the Language Model Tools and @fix (shell side: src/vscode/lmTools.ts),
// built here because the failure report counts tokens: the tokenizer is the engine bundle's.
export { checksToolResult, fixToolResult, formatChecksToolResult, formatFixToolResult } from '../core/gate/tools';
export { agentHostsFound, applyHooksFile } from '../core/gate/hookInstall';
