// What every Fix Until Green surface says in Restricted Mode (issue 40): one sentence, what it would
// run and so why it needs trust, ending with the way out by the name VS Code gives it (Manage
// Workspace Trust, the command behind the button beside it). The manifest's
// `capabilities.untrustedWorkspaces.description`, which VS Code shows while the extension is off, is
// the same sentence (the manifest test holds them together). No `vscode` import: unit-tested.

/** VS Code's own command title, and the label of the button that runs it. */
export const MANAGE_TRUST = 'Manage Workspace Trust';
export const MANAGE_TRUST_COMMAND = 'workbench.trust.manage';

/** `what` says what would run ("Fix Until Green's bench runs this repository's checks"), no full stop. */
export function untrustedSentence(what: string): string {
  return `${what}, so it needs a trusted workspace: trust this folder with ${MANAGE_TRUST}.`;
}

/** The sentence VS Code shows in the extension's page in Restricted Mode (package.json). */
export const MANIFEST_UNTRUSTED = untrustedSentence("Fix Until Green runs this workspace's own type checker, linter and tests and writes model-proposed edits to its files");
