// The question a multi-root workspace asks before a command acts on one folder: which folder, and
// why it asks (issue 40: "Which workspace folder?" alone left the newcomer guessing why a run wanted
// an answer the single-folder window never asked for). No `vscode` import: unit-tested.

export interface FolderQuestion {
  title: string;
  placeHolder: string;
}

/**
 * `count` folders could be meant: with no editor open in one of them (`why: 'no-editor'`), or with
 * several of them holding a run the command applies to (`why: 'several-runs'`).
 */
export function folderQuestion(purpose: string, count: number, why: 'no-editor' | 'several-runs'): FolderQuestion {
  const reason = why === 'no-editor' ? `this workspace has ${count} folders and no open editor says which` : `${count} folders have a run this applies to`;
  // The run command's purpose is the extension's own name: said once, not "Fix Until Green: Fix Until Green".
  return { title: purpose.startsWith('Fix Until Green') ? purpose : `Fix Until Green: ${purpose}`, placeHolder: `Which workspace folder? (${reason})` };
}
