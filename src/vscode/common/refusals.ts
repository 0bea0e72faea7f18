// How VS Code words what the launcher refused (core/launch.ts): a short sentence with its fixes as
// buttons (the commands show it as a notification; the tools and `@fix` answer its sentence). Pure,
// no `vscode` import: the unit tests read it directly.
import type { Refusal } from '../../core/launch';
import type { KeyRefusal } from '../../core/model/keyTrust';
import type { Problem } from './fixActions';
import { checksProblem } from './fixActions';
import { namedInText } from '../../core/modelName';

/** What VS Code's ports attach to their answers: the sentence and its buttons, built where the cause is known. */
export type VscodeDetail = Problem;

export interface RefusalWords {
  /** The folder's name, as the notification names it. */
  folderName: string;
  /** What did not happen, before a settings problem: `the run did not start`, `the checks did not run`. */
  what: string;
}

/**
 * The key rule's refusal (core/model/keyTrust) as VS Code shows it: its sentence, the one-time
 * "Trust <origin> for this folder" button (remembered outside the folder) and the setting's button.
 */
export function endpointProblem(key: KeyRefusal, folder: string): Problem {
  return { message: key.message, actions: [{ kind: 'confirmEndpoint', folder, origin: key.origin }, { kind: 'openSetting', setting: key.setting.replace(/\[\d+\]$/, '') }] };
}

/** This window's own run in the folder: the command offers Show Panel and Stop It rather than a fix. */
export function isOwnRun(r: Refusal<VscodeDetail>): boolean {
  return r.kind === 'busy' && r.holder === undefined && r.task === 'a run';
}

/** The refusal as a sentence with its fix buttons. */
export function refusalProblem(r: Refusal<VscodeDetail>, w: RefusalWords): Problem {
  switch (r.kind) {
    case 'settings':
      return { message: `${w.what}: ${r.problems.join('; ')}`, actions: r.detail?.actions ?? [] };
    case 'model':
      // A model named as a person names it (`big-coder on 127.0.0.1:1234`), not by its setting.
      return r.detail ? { ...r.detail, message: namedInText(r.detail.message) } : { message: namedInText(r.problem), actions: [] };
    case 'endpoint':
      // VS Code's key port attaches "Trust <origin> for this folder" and the setting's button.
      return r.detail ?? { message: r.key.message, actions: [{ kind: 'openSetting', setting: r.key.setting.replace(/\[\d+\]$/, '') }] };
    case 'checks':
      return checksProblem(r.problems);
    case 'busy': {
      if (isOwnRun(r)) return { message: `a run is already in progress in ${w.folderName}; stop it first`, actions: [] };
      const h = r.holder;
      const who = h ? `${r.task} (pid ${h.pid}${h.runId ? `, ${h.runId}` : ''})` : r.task;
      return { message: `${who} is in progress in ${w.folderName}; try again when it is done`, actions: [] };
    }
    case 'storage':
      return { message: `the run storage ${r.dir} cannot be written (${r.errno}); nothing was started`, actions: [] };
    case 'interrupted':
      return { message: `answer Revert or Keep for the interrupted run in ${w.folderName} first; the new run did not start`, actions: [] };
  }
}
