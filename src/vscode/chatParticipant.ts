// The `@fix` chat participant (id `fixUntilGreen.fix`, DESIGN §7): "@fix make the tests pass" runs
// the loop with the model selected in the Chat view and streams its steps into the response;
// "@fix /checks" runs the checks once (the same seen-counter as the tools); "@fix /continue" resumes
// a run stopped with its steps or tokens used up, offered as a follow-up. The run is the folder's
// controller's: the panel, the status bar, Revert and the trace are the same as from the palette.
// The turn itself is the engine bundle's (chatTurn.ts); registering, refusing and the follow-ups are here.
import * as vscode from 'vscode';
import type { FixChatResult } from './chatTurn';
import { md } from './common/chatWords';
import { CHAT_KEEP_COMMAND, CHAT_UNDO_COMMAND } from './common/commandIds';
import { CONTINUE_ONLY } from './common/stepWords';
import type { GateHost } from './gateHost';
import { GateRefusal, isRefusal } from './gateHost';
import { keepReviewed, undoReviewed } from './reviewUi';
import { loadEngine } from './shellEngine';

export type { FixChatResult } from './chatTurn';

export const PARTICIPANT_ID = 'fixUntilGreen.fix';

export class FixParticipant {
  constructor(private readonly host: GateHost) {}

  register(extensionUri: vscode.Uri): vscode.Disposable {
    const p = vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, context, stream, token) => this.handle(request, context, stream, token));
    p.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
    p.followupProvider = { provideFollowups: (result: FixChatResult) => followups(result) };
    // The response's Keep and Undo: the review's own actions on the files the run left pending.
    const keep = vscode.commands.registerCommand(CHAT_KEEP_COMMAND, (folder: string) => keepReviewed(this.host.controller(this.host.folder(folder))));
    const undo = vscode.commands.registerCommand(CHAT_UNDO_COMMAND, (folder: string) => undoReviewed(this.host.controller(this.host.folder(folder)), this.host.logger));
    return vscode.Disposable.from(p, keep, undo);
  }

  async handle(request: vscode.ChatRequest, _context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<FixChatResult> {
    const command = request.command ?? 'fix';
    try {
      this.host.requireTrust();
      const c = this.host.controller(this.host.folder(undefined));
      if (command === 'continue' && !c.canContinue) throw new GateRefusal(`nothing to continue in ${c.folderName}: ${CONTINUE_ONLY}`);
      return await (await loadEngine(this.host.logger)).chatTurn(command, this.host, c, request, stream, token);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      stream.markdown(`**Fix Until Green did not run:** ${md(e.message)}`);
      return { metadata: { command, refused: e.message } };
    }
  }
}

export function followups(result: FixChatResult): vscode.ChatFollowup[] {
  if (!result.metadata?.canContinue) return [];
  return [{ prompt: 'continue with more budget', label: 'Continue with more budget', command: 'continue' }];
}
