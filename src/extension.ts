// Composition root: creates the parts, wires them, pushes every disposable. No logic of its own.
import * as vscode from 'vscode';
import { defaultSettings } from './core/settings';
import { BudgetMeter } from './vscode/budgetMeter';
import { FixParticipant } from './vscode/chatParticipant';
import { Commands } from './vscode/commands';
import { ContextKeys } from './vscode/contextKeys';
import { RunController } from './vscode/controller';
import { RunControllers } from './vscode/runControllers';
import { FailureDiagnostics } from './vscode/diagnostics';
import { registerBenchCommand } from './vscode/benchCommand';
import { registerGateAgentMode } from './vscode/gateAgentMode';
import { GateHost } from './vscode/gateHost';
import { watchHookSessions } from './vscode/hookWatch';
import { registerGateTools } from './vscode/lmTools';
import { registerMcpDefinitions } from './vscode/mcpDefinition';
import { followActiveEditor, followSettings, followWorkspaceFolders } from './vscode/followers';
import { folderStorageDir } from './vscode/folders';
import { LastRuns } from './vscode/lastRuns';
import { channelLogger } from './vscode/logger';
import { PanelHost } from './vscode/panelHost';
import { offerRecovery } from './vscode/recovery';
import { lazyFolderEngine, loadedEngine } from './vscode/shellEngine';
import { FailureTests } from './vscode/testResults';
import { ApiKeys } from './vscode/secrets';

export function activate(context: vscode.ExtensionContext): void {
  const started = performance.now();
  const channel = vscode.window.createOutputChannel('Fix Until Green', { log: true });
  const logger = channelLogger(channel);
  const storageRoot = context.storageUri?.fsPath;
  const defaults = defaultSettings();

  const keys = new ApiKeys(context.secrets, context.globalState);
  const lastRuns = new LastRuns(context.workspaceState);
  const controllers = new RunControllers((folder, name) => {
    const limits = { maxSteps: defaults.maxSteps, tokenCeiling: defaults.tokenCeiling, timeLimitSeconds: defaults.timeLimitSeconds };
    const engine = storageRoot ? lazyFolderEngine(folder, folderStorageDir(storageRoot, folder), { keys, logger }) : undefined;
    const c = new RunController(folder, name, limits, lastRuns.load(folder), { engine, logger });
    // A loop event comes from the engine's loop, so the engine (and its log lines, runLog.ts) is loaded.
    c.onEvent((e) => logger.info(`[${name}] ${loadedEngine()?.describeEvent(e) ?? e.type}`));
    return c;
  });
  const panel = new PanelHost(context.extensionUri, controllers, logger);
  const commands = new Commands({ controllers, keys, logger, showPanel: (focus) => panel.show(focus) });
  // The gate for other agents (issue 17): the tools, @fix and the MCP server share one host.
  const gate = new GateHost({ controllers, logger });

  context.subscriptions.push(
    channel,
    controllers,
    lastRuns.follow(controllers),
    new BudgetMeter(controllers),
    new FailureDiagnostics(controllers),
    new FailureTests(controllers, logger),
    new ContextKeys(controllers),
    panel,
    ...commands.register(),
    followWorkspaceFolders(controllers),
    followActiveEditor(controllers),
    followSettings(controllers, logger),
    ...registerGateTools(gate),
    new FixParticipant(gate).register(context.extensionUri),
    ...registerMcpDefinitions(context.extensionUri),
    registerGateAgentMode({ extensionUri: context.extensionUri, storageRoot, logger }),
    // Benchmark Models on This Repository… (issue 38): the bench loads with the engine when it runs.
    registerBenchCommand({ storageRoot, keys, logger }),
    // The panel follows an agent's session the installed hooks record (issue 30).
    watchHookSessions(controllers, storageRoot, logger),
  );

  // The e2e suite reads this line; the engine's own line ("engine loaded in") comes at the first run or check.
  logger.info(`activated in ${(performance.now() - started).toFixed(1)} ms; the engine loads at the first run or check`);
  void offerRecovery(controllers, storageRoot !== undefined, logger).catch((e: unknown) =>
    logger.error(`recovery of interrupted runs failed: ${e instanceof Error ? e.message : String(e)}`),
  );
}

export function deactivate(): void {
  // Every part is disposed through context.subscriptions.
}
