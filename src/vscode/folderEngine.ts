// The engine of one workspace folder: runs and check passes prepared by the core's launcher
// (launchingEngine.ts over core/launch.ts) with what only the extension knows: VS Code's buffers as
// the workspace, the models from its settings with SecretStorage's keys and `vscode.lm`, its log. The
// controller asks this; commands never build the engine.
import type { ModelProvider } from '../core/model/provider';
import type { Logger } from '../core/types';
import type { FolderEngine } from './controller';
import { launchingEngine } from './launchingEngine';
import { vscodeKeyPort, vscodeModelPort } from './modelProvider';
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
  return launchingEngine(root, storageDir, {
    // A key goes only where its owner sends it (issue 29): judged for the run's model and every rung.
    keys: vscodeKeyPort(root, deps.keys),
    model: vscodeModelPort(root, deps.keys, logger),
    workspace: (label) => new VscodeWorkspace(root, logger, label),
    logger,
  });
}

// The gate's results for the Language Model Tools and @fix (shell side: src/vscode/lmTools.ts),
// built here because the failure report counts tokens: the tokenizer is the engine bundle's.
export { checksToolResult, fixToolResult, formatChecksToolResult, formatFixToolResult } from '../core/gate/tools';
export { installAgentHooks } from './agentHooks';
// The panel following an agent's hook session (the shell's watch, hookWatch.ts, starts it when one shows up).
export { followHookSessions } from './hookFollower';
// Choose Model…'s guided set-up (the palette's command, and the fixes of the no-model and base-URL
// stops): rarely used, so the shell loads it with the engine rather than at every window's startup.
export { askBaseUrl, chooseModel } from './chooseModel';
// An `@fix` turn's streamed steps and closing words (the participant's registration is the shell's).
export { chatTurn } from './chatTurn';
// A loop event's line in the log (loop events come from the engine, so it is loaded by then).
export { describeEvent } from './common/runLog';
// What a run's stop tells the user in a notification (a run has loaded the engine by then).
export { announceStop } from './stopNotice';
export { TestingView } from './testingView';
// Benchmark Models on This Repository… (issue 38): the bench core runs in the engine bundle, loaded when the command runs.
export { benchRepository } from './benchUi';
