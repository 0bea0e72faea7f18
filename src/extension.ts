// Composition root: creates the parts, wires them, pushes every disposable. No logic of its own.
import * as vscode from 'vscode';
import { defaultSettings } from './core/settings';
import { BudgetMeter } from './vscode/budgetMeter';
import { Commands } from './vscode/commands';
import { ContextKeys } from './vscode/contextKeys';
import { RunController, RunControllers } from './vscode/controller';
import { FailureDiagnostics } from './vscode/diagnostics';
import { followActiveEditor, followSettings, followWorkspaceFolders } from './vscode/followers';
import { LastRuns } from './vscode/lastRuns';
import { channelLogger } from './vscode/logger';
import { PanelHost } from './vscode/panelHost';
import { offerRecovery } from './vscode/recovery';
import { describeEvent } from './vscode/runLog';
import { ApiKeys } from './vscode/secrets';

export function activate(context: vscode.ExtensionContext): void {
  const channel = vscode.window.createOutputChannel('Fix Until Green', { log: true });
  const logger = channelLogger(channel);
  const storageRoot = context.storageUri?.fsPath;
  const defaults = defaultSettings();

  const lastRuns = new LastRuns(context.workspaceState);
  const controllers = new RunControllers((folder, name) => {
    const c = new RunController(folder, name, { maxSteps: defaults.maxSteps, tokenCeiling: defaults.tokenCeiling, timeLimitSeconds: defaults.timeLimitSeconds }, lastRuns.load(folder));
    c.onEvent((e) => logger.info(`[${name}] ${describeEvent(e)}`));
    return c;
  });
  const commands = new Commands({ controllers, keys: new ApiKeys(context.secrets), logger, storageRoot, showPanel: () => panel.show() });
  const panel = new PanelHost(context.extensionUri, controllers, { action: (a, f) => commands.action(a, f), openDiff: (s, f) => commands.openStepDiff(s, f) }, logger);

  context.subscriptions.push(
    channel,
    controllers,
    lastRuns.follow(controllers),
    new BudgetMeter(controllers),
    new FailureDiagnostics(controllers),
    new ContextKeys(controllers),
    panel,
    ...commands.register(),
    followWorkspaceFolders(controllers),
    followActiveEditor(controllers),
    followSettings(controllers, logger),
  );

  void offerRecovery(storageRoot, logger, (folder) => controllers.find(folder)?.markReverted('run')).catch((e: unknown) =>
    logger.error(`recovery of interrupted runs failed: ${e instanceof Error ? e.message : String(e)}`),
  );
}

export function deactivate(): void {
  // Every part is disposed through context.subscriptions.
}
