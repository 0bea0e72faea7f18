// A language-model chat provider with scripted replies, registered through VS Code's own API, so
// the e2e suite can drive Fix Until Green's `vscode-lm` provider for real. The script is the replay
// format (`{"responses":[{"text": ...}]}`) in the file named by FUG_LM_SCRIPT; each request takes
// the next reply. A changed file (new mtime) starts again from its first reply. Every request is
// appended to `<script>.requests.jsonl` so a test can see what the model was asked.
//
// It also hosts the e2e suite's calls of other extensions' Language Model Tools from inside the
// extension host: the command "FUG Tests: Invoke Tools" reads a plan (`{"calls":[{"tool","input"}]}`)
// from the file named by FUG_TOOLS_PLAN, calls each through `vscode.lm.invokeTool` as an agent
// would, and writes what came back to `<plan>.results.json` after each call.
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';

interface Script {
  responses: { text: string }[];
}

// `isUserSelectable` (not in the stable typings, passed through by the extension host) lists the
// model in the Chat view's model picker, so a chat participant can be driven with it (`@fix`).
const MODEL: vscode.LanguageModelChatInformation & { isUserSelectable: boolean } = {
  isUserSelectable: true,
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
  context.subscriptions.push(vscode.commands.registerCommand('fugTests.invokeTools', () => invokeTools()));
  context.subscriptions.push(vscode.commands.registerCommand('fugTests.askChat', () => askChat()));
}

/**
 * Sends the query in the file FUG_CHAT_QUERY_FILE names to the Chat view with the scripted model
 * selected: the model picker offers only a Copilot sign-in without Copilot, but the workbench's own
 * chat-open command takes a model selector.
 */
async function askChat(): Promise<void> {
  const file = process.env.FUG_CHAT_QUERY_FILE;
  if (!file) throw new Error('FUG_CHAT_QUERY_FILE is not set: no query to send');
  const query = readFileSync(file, 'utf8').trim();
  await vscode.commands.executeCommand('workbench.action.chat.open', { query, modelSelector: { vendor: 'fug-scripted', id: MODEL.id } });
}

interface ToolCall {
  tool: string;
  input: object;
}

interface ToolAnswer {
  tool: string;
  text?: string;
  error?: string;
  ms: number;
}

async function invokeTools(): Promise<void> {
  const plan = process.env.FUG_TOOLS_PLAN;
  if (!plan) throw new Error('FUG_TOOLS_PLAN is not set: no plan of tool calls');
  const { calls } = JSON.parse(readFileSync(plan, 'utf8')) as { calls: ToolCall[] };
  const out = `${plan}.results.json`;
  // What the agent sees of the tools: their names and descriptions, as lm.tools lists them.
  const listed = vscode.lm.tools.filter((t) => t.name.startsWith('fixUntilGreen_')).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  const answers: ToolAnswer[] = [];
  const save = (done: boolean): void => writeFileSync(out, JSON.stringify({ listed, answers, done }, null, 2));
  save(false);
  for (const c of calls) {
    const t0 = Date.now();
    try {
      const r = await vscode.lm.invokeTool(c.tool, { input: c.input, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token);
      const text = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
      answers.push({ tool: c.tool, text, ms: Date.now() - t0 });
    } catch (e) {
      answers.push({ tool: c.tool, error: e instanceof Error ? e.message : String(e), ms: Date.now() - t0 });
    }
    save(false);
  }
  save(true);
}
