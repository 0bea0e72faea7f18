// Benchmark Models on This Repository…, engine side (loaded with dist/engine.js when the command runs,
// never at activation): the variants picked from the models Choose Model… knows (the oracle first and
// picked), the bench behind a cancellable progress notification (task i of n, the variant), and the
// report opened in a webview (benchReportView.ts). The bench itself is benchRun.ts's.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import type { KnownModel, VariantChoice } from './common/benchWords';
import { BENCH_TITLE, doneSentence, progressWords, variantChoices } from './common/benchWords';
import { explicitValues, SETTINGS_SECTION } from './common/settingKeys';
import { benchFolder } from './benchRun';
import { showBenchReport } from './benchReportView';
import { chooseFolder, folderStorageDir, showUntrusted } from './folders';
import { untrustedSentence } from './common/trustWords';
import type { ApiKeys } from './secrets';

export interface BenchUiDeps {
  storageRoot: string | undefined;
  keys: ApiKeys;
  logger: Logger;
}

/** How many of the newest first-parent commits the bench reads (the CLI's default). */
const LAST = 50;

function configuredModel(root: string): KnownModel | undefined {
  const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION, vscode.Uri.file(root));
  const v = explicitValues((key) => cfg.inspect(key));
  const provider = typeof v['model.provider'] === 'string' ? v['model.provider'] : 'vscode-lm';
  const id = typeof v['model.id'] === 'string' ? v['model.id'] : '';
  if (id === '') return undefined;
  const escalation = Array.isArray(v['model.escalation']) ? (v['model.escalation'] as { provider: string; id: string; baseUrl?: string }[]).map((r) => ({ provider: r.provider, id: r.id, baseUrl: r.baseUrl ?? '' })) : [];
  return { provider, id, baseUrl: typeof v['model.baseUrl'] === 'string' ? v['model.baseUrl'] : '', escalation };
}

async function pickVariants(root: string): Promise<VariantChoice[] | undefined> {
  const chat = (await vscode.lm.selectChatModels()).map((m): KnownModel => ({ provider: 'vscode-lm', id: m.id, baseUrl: '', name: m.name, vendor: m.vendor }));
  const choices = variantChoices(chat, configuredModel(root));
  const picked = await vscode.window.showQuickPick(choices, {
    title: `${BENCH_TITLE}: variants`,
    // Short enough to show whole beside the "N Selected" badge; the oracle row says what it is for.
    placeHolder: `Variants to run on every task of the last ${LAST} commits`,
    canPickMany: true,
    ignoreFocusOut: true,
  });
  return picked && picked.length > 0 ? picked : undefined;
}

export async function benchRepository(deps: BenchUiDeps): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void showUntrusted(untrustedSentence("Fix Until Green's bench runs this repository's checks on its past commits"));
    return;
  }
  const folder = await chooseFolder('Benchmark Models');
  if (!folder) return;
  if (!deps.storageRoot) {
    void vscode.window.showWarningMessage('Fix Until Green: the bench keeps its copies and results in the workspace storage, which this window has none of.');
    return;
  }
  const root = folder.uri.fsPath;
  const picked = await pickVariants(root);
  if (!picked) return;
  const storageDir = path.join(folderStorageDir(deps.storageRoot, root), 'bench');
  const controller = new AbortController();
  let taskIds: string[] = [];
  const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: BENCH_TITLE.replace(/^Fix Until Green: /, ''), cancellable: true }, (progress, token) => {
    token.onCancellationRequested(() => controller.abort());
    return benchFolder({
      root,
      storageDir,
      keys: deps.keys,
      logger: deps.logger,
      variants: picked.map((c) => c.variant),
      last: LAST,
      signal: controller.signal,
      onEvent: (e) => {
        const words = progressWords(e, taskIds);
        if (words) progress.report(words);
      },
      onPlan: (ids) => {
        taskIds = [...ids];
      },
    });
  });
  if (!result.ok) {
    void vscode.window.showErrorMessage(`Fix Until Green: the bench cannot start: ${result.problems.join('; ')}`);
    return;
  }
  const run = result.run;
  const best = run?.report.summaries.filter((s) => s.variant !== 'oracle').sort((a, b) => b.greenRate - a.greenRate)[0];
  const sentence = doneSentence({
    tasks: result.plan.tasks.length,
    pairs: run?.outcome.ran ?? 0,
    cancelled: controller.signal.aborted,
    oracleMisses: run?.oracleMisses ?? [],
    untouched: run?.outcome.proof.untouched ?? true,
    ...(best ? { best: { variant: best.variant, green: best.green, pairs: best.pairs } } : {}),
  });
  deps.logger.info(sentence);
  if (!run) {
    void vscode.window.showInformationMessage(sentence);
    return;
  }
  showBenchReport(`Bench: ${folder.name}`, result.html);
  void vscode.window.showInformationMessage(sentence);
}
