// The `vscode-lm` provider: the core ModelProvider port on VS Code's Language Model API, so a run
// can use whatever chat models the user has (Copilot or any extension that registers a provider).
import * as vscode from 'vscode';
import type { ModelProvider } from '../core/model/provider';
import { ProviderFatalError } from '../core/model/provider';
import { countTokens } from '../core/tokens';
import type { Completion, CompletionRequest } from '../core/types';

export const LM_JUSTIFICATION = 'Fix Until Green asks the model for edits that make your checks pass, and verifies every one with your own checks.';

/** Picks the chat model `id` names (an id, else a family); empty: the first one available. */
export async function selectLanguageModel(id: string): Promise<vscode.LanguageModelChat | undefined> {
  if (id === '') return (await vscode.lm.selectChatModels())[0];
  const byId = await vscode.lm.selectChatModels({ id });
  if (byId.length > 0) return byId[0];
  return (await vscode.lm.selectChatModels({ family: id }))[0];
}

export async function describeAvailableModels(): Promise<string> {
  const all = await vscode.lm.selectChatModels();
  return all.length === 0 ? 'none' : all.map((m) => `${m.id} (${m.vendor}/${m.family})`).join(', ');
}

/** Codes the user must act on (consent, quota block, model gone): retrying cannot help. */
const FATAL_CODES = new Set(['NoPermissions', 'Blocked', 'NotFound']);

function isFatal(e: vscode.LanguageModelError): boolean {
  return FATAL_CODES.has(e.code);
}

export class VscodeLmProvider implements ModelProvider {
  readonly label: string;
  readonly name: string;

  constructor(private readonly model: vscode.LanguageModelChat) {
    this.label = `vscode-lm:${model.id}`;
    this.name = model.name;
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    if (req.signal.aborted) throw req.signal.reason instanceof Error ? req.signal.reason : new Error('aborted');
    // The API has no system role: the instructions lead the first user message.
    const [first, ...rest] = req.messages;
    const messages = [
      vscode.LanguageModelChatMessage.User(first ? `${req.system}\n\n${first.content}` : req.system),
      ...rest.map((m) => (m.role === 'user' ? vscode.LanguageModelChatMessage.User(m.content) : vscode.LanguageModelChatMessage.Assistant(m.content))),
    ];
    const cts = new vscode.CancellationTokenSource();
    const onAbort = (): void => cts.cancel();
    req.signal.addEventListener('abort', onAbort, { once: true });
    let text = '';
    let finishReason = 'stop';
    try {
      const response = await this.model.sendRequest(messages, { justification: LM_JUSTIFICATION }, cts.token);
      for await (const chunk of response.text) {
        text += chunk;
        // The API takes no output limit, so the budget is enforced here: stop reading past it.
        if (countTokens(text) > req.maxOutputTokens) {
          finishReason = 'length';
          cts.cancel();
          break;
        }
      }
    } catch (e) {
      if (req.signal.aborted) throw req.signal.reason instanceof Error ? req.signal.reason : new Error('aborted');
      if (e instanceof vscode.LanguageModelError && isFatal(e)) {
        throw new ProviderFatalError(`${this.model.name} (${this.model.vendor}) refused the request: ${e.message} [${e.code}]`);
      }
      throw e;
    } finally {
      req.signal.removeEventListener('abort', onAbort);
      cts.dispose();
    }
    // The API reports no usage: count with the model's own tokenizer.
    let input = 0;
    for (const m of messages) input += await this.model.countTokens(m);
    const output = Math.min(await this.model.countTokens(text), req.maxOutputTokens);
    return { text, usage: { input, output }, usageReported: false, finishReason };
  }
}
