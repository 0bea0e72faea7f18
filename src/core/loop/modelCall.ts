// A step's model call as the run makes it: the request sized by the allowance, the call (./modelTurn),
// its tokens and money charged, its event emitted, a post-mortem kept. A call that failed ends the
// step: a stop when the run was interrupted or the provider's fault is fatal, else the error itself.
import type { InputAllowance } from '../model/budget';
import type { ModelProvider } from '../model/provider';
import { ProviderFatalError } from '../model/provider';
import type { Decision } from '../policy/reasons';
import type { RunEvent } from '../trace/events';
import type { RunAllowance } from './allowance';
import type { ModelTurn } from './modelTurn';
import { modelCallEvent, modelTurn } from './modelTurn';
import type { Prompt } from './prompter';
import { StopSignal } from './state';

/** What a step's call needs of the run. */
export interface ModelCallDeps {
  provider: ModelProvider;
  allowance: RunAllowance;
  signal: AbortSignal;
  now: () => number;
  emit(e: RunEvent): void;
  interrupted(): Decision | undefined;
  /** The provider reported the prompt's real input tokens: the gauge learns from them. */
  observeUsage(measured: InputAllowance, input: number): void;
  postMortem(step: number, text: string): void;
}

export type ModelCall = Extract<ModelTurn, { ok: true }> & { model: string; cost: number | null };

export async function callModel(d: ModelCallDeps, step: number, prompt: Prompt, measured: InputAllowance): Promise<ModelCall> {
  const maxOutputTokens = d.allowance.outputLimit(measured.allowance);
  const request = { step, system: prompt.system, user: prompt.user, promptTokens: measured.allowance, maxOutputTokens };
  const label = d.provider.label;
  d.emit({ type: 'model-call-start', step, model: label, promptTokens: measured.allowance, maxOutputTokens });
  const call = await modelTurn({ provider: d.provider, signal: d.signal, now: d.now, emit: d.emit, interrupted: () => d.interrupted() !== undefined }, request);
  if (!call.ok) {
    d.emit(modelCallEvent(label, request, call, d.allowance.tokensUsed, d.allowance.money(null)));
    const stop = d.interrupted();
    if (stop) throw new StopSignal(stop);
    if (call.error instanceof ProviderFatalError) throw new StopSignal({ reason: 'error', detail: call.message.includes(label) ? call.message : `model ${label}: ${call.message}` });
    throw call.error;
  }
  const cost = d.allowance.charge(call.usage);
  if (call.usageReported) d.observeUsage(measured, call.usage.input);
  d.emit(modelCallEvent(label, request, call, d.allowance.tokensUsed, d.allowance.money(cost)));
  if (call.self.postMortem && !call.replyError) d.postMortem(step, call.self.postMortem);
  return { ...call, model: label, cost };
}
