// A language-model chat provider with scripted replies, registered through VS Code's own API, so
// the e2e suite can drive Fix Until Green's `vscode-lm` provider for real. The script is the replay
// format (`{"responses":[{"text": ...}]}`) in the file named by FUG_LM_SCRIPT; each request takes
// the next reply. A changed file (new mtime) starts again from its first reply. Every request is
// appended to `<script>.requests.jsonl` so a test can see what the model was asked.
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import * as vscode from 'vscode';

interface Script {
  responses: { text: string }[];
}

const MODEL: vscode.LanguageModelChatInformation = {
  id: 'fug-scripted-model',
  name: 'Scripted Test Model',
  family: 'fug-scripted',
  version: '1',
  maxInputTokens: 128000,
  maxOutputTokens: 8192,
  capabilities: {},
};

let loadedMtime = -1;
let next = 0;

function textOf(m: vscode.LanguageModelChatRequestMessage): string {
  return m.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

export function activate(context: vscode.ExtensionContext): void {
  const file = process.env.FUG_LM_SCRIPT;
  const provider: vscode.LanguageModelChatProvider = {
    provideLanguageModelChatInformation: () => [MODEL],
    async provideLanguageModelChatResponse(_model, messages, _options, progress, token) {
      if (!file) throw new Error('FUG_LM_SCRIPT is not set: no script to answer from');
      const mtime = statSync(file).mtimeMs;
      if (mtime !== loadedMtime) {
        loadedMtime = mtime;
        next = 0;
      }
      const script = JSON.parse(readFileSync(file, 'utf8')) as Script;
      const reply = script.responses[next];
      appendFileSync(`${file}.requests.jsonl`, JSON.stringify({ index: next, messages: messages.map(textOf) }) + '\n');
      if (!reply) throw new Error(`script ${file} has ${script.responses.length} replies; request ${next + 1} asked for another`);
      next++;
      // Streamed in a few parts, as a real model does.
      const parts = reply.text.match(/[\s\S]{1,200}/g) ?? [''];
      for (const p of parts) {
        if (token.isCancellationRequested) return;
        progress.report(new vscode.LanguageModelTextPart(p));
      }
    },
    // Four characters a token: what the tests need is a stable, positive count.
    provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text : textOf(text)).length / 4),
  };
  context.subscriptions.push(vscode.lm.registerLanguageModelChatProvider('fug-scripted', provider));
}
