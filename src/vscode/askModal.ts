// The modal question that guards an action which discards work (issue 40): Revert run, Revert to best, Undo all.
import * as vscode from 'vscode';
import type { Question } from './common/confirmWords';

/** A modal question with one button that goes ahead; true when the user pressed it. */
export async function ask(q: Question): Promise<boolean> {
  return (await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, q.confirm)) === q.confirm;
}
