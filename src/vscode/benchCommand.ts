// "Fix Until Green: Benchmark Models on This Repository…" (issue 38), shell side: the command and the
// report's trace links are registered at activation; everything else (the choices, the progress,
// the bench, the report) is the engine bundle's (benchUi.ts), loaded when the command runs, as
// Choose Model… and Gate Agent Mode… are.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import { BENCH_COMMAND, BENCH_OPEN_TRACE_COMMAND } from './common/commandIds';
import type { ApiKeys } from './secrets';
import { loadEngine } from './shellEngine';

export interface BenchCommandDeps {
  storageRoot: string | undefined;
  keys: ApiKeys;
  logger: Logger;
}

/** The report's trace links: opens a run's trace (a `trace.jsonl` under the extension's storage, nothing else). */
function registerOpenTrace(storageRoot: string | undefined): vscode.Disposable {
  return vscode.commands.registerCommand(BENCH_OPEN_TRACE_COMMAND, async (file?: unknown) => {
    const inside = typeof file === 'string' && storageRoot !== undefined && path.isAbsolute(file) && !path.relative(storageRoot, file).startsWith('..') && path.basename(file) === 'trace.jsonl';
    if (inside) await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
  });
}

export function registerBenchCommand(deps: BenchCommandDeps): vscode.Disposable {
  return vscode.Disposable.from(
    registerOpenTrace(deps.storageRoot),
    vscode.commands.registerCommand(BENCH_COMMAND, async () => {
      try {
        await (await loadEngine(deps.logger)).benchRepository(deps);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        deps.logger.error(`${BENCH_COMMAND}: ${message}`);
        void vscode.window.showErrorMessage(`Fix Until Green: ${message}`);
      }
    }),
  );
}
