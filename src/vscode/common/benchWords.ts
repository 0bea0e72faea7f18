// The words and choices of Benchmark Models on This Repository… (benchCommand.ts), apart from the
// quick pick, the notification and the webview that show them: no `vscode` import, unit-tested.
import type { BenchEvent } from '../../core/bench/benchFlow';
import type { VariantSpec } from '../../core/bench/plan';
import { plural } from './chatWords';
import { BENCH_OPEN_TRACE_COMMAND } from './commandIds';

export const BENCH_TITLE = 'Fix Until Green: Benchmark Models on This Repository';
export const BENCH_REPORT_VIEW_TYPE = 'fixUntilGreen.benchReport';

/** A model Choose Model… knows: a chat model of VS Code's, or the folder's configured model (and ladder). */
export interface KnownModel {
  provider: string;
  id: string;
  baseUrl: string;
  /** A shown name (the chat model's). */
  name?: string;
  vendor?: string;
  escalation?: { provider: string; id: string; baseUrl: string }[];
}

export interface VariantChoice {
  label: string;
  description: string;
  detail: string;
  picked: boolean;
  variant: VariantSpec;
}

const ORACLE_CHOICE: VariantChoice = {
  label: 'oracle',
  description: 'built in, free',
  // One line in the picker (a longer one is cut off): why it is there is in the report's words.
  detail: "Replays each task's own fix: every task must go green with it",
  picked: true,
  variant: { name: 'oracle', kind: 'oracle', settings: {}, source: 'built in: the reference fix replayed as the reply' },
};

function modelVariant(m: KnownModel, name: string, source: string, ladder: boolean): VariantSpec {
  return { name, kind: 'model', source, settings: { 'model.provider': m.provider, 'model.id': m.id, 'model.baseUrl': m.baseUrl, 'model.escalation': ladder ? (m.escalation ?? []) : [] } };
}

/**
 * The variants offered: the oracle first and picked; VS Code's chat models; the folder's configured
 * model when it is not one of those, and its ladder when it has one. Names are unique (a variant's
 * name keys its results).
 */
export function variantChoices(chat: readonly KnownModel[], configured: KnownModel | undefined): VariantChoice[] {
  const out: VariantChoice[] = [ORACLE_CHOICE];
  const names = new Set(['oracle']);
  const unique = (want: string): string => {
    let n = want.replace(/[^\w.:-]/g, '_') || 'model';
    for (let i = 2; names.has(n); i++) n = `${want}-${i}`;
    names.add(n);
    return n;
  };
  for (const m of chat) {
    const name = unique(m.id);
    out.push({ label: m.name ?? m.id, description: `${m.vendor ?? 'vscode-lm'} · ${m.id}`, detail: "Through VS Code's Language Model API", picked: false, variant: modelVariant(m, name, `vscode-lm:${m.id}`, false) });
  }
  if (configured && configured.id !== '' && !(configured.provider === 'vscode-lm' && chat.some((m) => m.id === configured.id))) {
    const where = configured.baseUrl ? ` at ${hostOf(configured.baseUrl)}` : '';
    const name = unique(configured.id);
    out.push({ label: configured.id, description: `${configured.provider}${where}`, detail: 'The model in this folder\'s settings (fixUntilGreen.model)', picked: false, variant: modelVariant(configured, name, `${configured.provider}:${configured.id}`, false) });
    if ((configured.escalation?.length ?? 0) > 0) {
      const ladder = [configured.id, ...configured.escalation!.map((r) => r.id)].join(' → ');
      out.push({ label: `${configured.id} with its ladder`, description: ladder, detail: 'The configured model escalating as fixUntilGreen.model.escalation says', picked: false, variant: modelVariant(configured, unique(`${configured.id}-ladder`), `ladder ${ladder}`, true) });
    }
  }
  return out;
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

/** What the notification says for a bench event, and how far the bar moves (percent); undefined: nothing new. */
export function progressWords(e: BenchEvent, taskIds: readonly string[]): { message: string; increment?: number } | undefined {
  switch (e.type) {
    case 'verdict':
      return { message: `judging commit ${e.index + 1} of ${e.total} (${e.explanation.commit.slice(0, 10)}): does it fail before its fix and pass after?` };
    case 'start':
      return { message: `${plural(e.total, 'run')}${e.skipped > 0 ? `, ${e.skipped} already done` : ''}` };
    case 'pair-start': {
      const i = taskIds.indexOf(e.pair.task);
      return { message: `task ${i + 1} of ${taskIds.length} · ${e.pair.variant}` };
    }
    case 'pair-end':
      return { message: `${e.done} of ${plural(e.total, 'run')} done · ${e.pair.variant} × task ${taskIds.indexOf(e.pair.task) + 1}: ${e.record.stopReason}${e.record.overfit ? ' (overfit)' : ''}${e.etaMs ? ` · about ${Math.max(1, Math.round(e.etaMs / 60_000))} min left` : ''}`, increment: 100 / Math.max(1, e.total) };
    case 'cost-ceiling':
      return { message: `cost ceiling ${e.ceiling} reached: ${plural(e.left, 'run')} not started` };
    default:
      return undefined;
  }
}

/** The webview's policy: the panel's (nothing by default, a nonce for what is allowed), and no script at all. */
export function reportCsp(nonce: string): string {
  return ["default-src 'none'", `style-src 'nonce-${nonce}'`, 'img-src data:'].join('; ');
}

/** A trace link the webview can follow: a command link with the trace's path as its argument. */
export function traceCommandHref(tracePath: string): string {
  return `command:${BENCH_OPEN_TRACE_COMMAND}?${encodeURIComponent(JSON.stringify([tracePath]))}`;
}

/** The last sentence: where the report is, and what the user must know (the oracle's misses, a changed folder). */
export function doneSentence(r: { tasks: number; pairs: number; cancelled: boolean; oracleMisses: readonly string[]; untouched: boolean; best?: { variant: string; green: number; pairs: number } }): string {
  const parts: string[] = [];
  if (r.tasks === 0) return 'Fix Until Green: no commit of the last ones is a task (none fails before its fix and passes after): see the log for why each was dropped.';
  parts.push(r.cancelled ? `Benchmark cancelled after ${plural(r.pairs, 'run')}; running it again goes on where it stopped.` : `Benchmark done: ${plural(r.tasks, 'task')}.`);
  // "Most green" for a variant that greened nothing would read as praise.
  if (r.best) parts.push(r.best.green > 0 ? `Most green: ${r.best.variant} (${r.best.green}/${r.best.pairs}).` : 'No model went green on any task.');
  if (r.oracleMisses.length > 0) parts.push(`The oracle missed ${plural(r.oracleMisses.length, 'task')}: ${r.oracleMisses.length === 1 ? 'its verdict' : 'their verdicts'} cannot be trusted.`);
  if (!r.untouched) parts.push('Your working tree or index CHANGED during the bench: see the report.');
  return `Fix Until Green: ${parts.join(' ')}`;
}
