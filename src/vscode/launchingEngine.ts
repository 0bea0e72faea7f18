// A folder's engine as VS Code builds it (folderEngine.ts), without the ports only VS Code has: runs
// and check passes are prepared by the core's launcher (core/launch.ts) and run as prepared, so a
// run's models and checks are built once. No `vscode` import: the unit tests build it with a replay
// model and plain files, and count what it builds.
import type { Workspace } from '../core/edit/workspace';
import type { KeyAnswer, ModelAnswer } from '../core/launch';
import { prepareChecks, prepareRun } from '../core/launch';
import type { ModelSettings, Settings } from '../core/settings';
import type { Logger } from '../core/types';
import type { FolderEngine } from './controller';
import type { VscodeDetail } from './common/refusals';
import { restoring } from './restoring';

export interface EnginePorts {
  /** The key rule before any model is built (core/launch.ts KeyAnswer): a refusal carries its confirm button. */
  keys(settings: Settings, ownModel: boolean): KeyAnswer<VscodeDetail> | Promise<KeyAnswer<VscodeDetail>>;
  /** Builds one model (0: the run's own; i: `model.escalation[i - 1]`), its problem with its fix buttons; `withholdKey`: sent no key. */
  model(m: ModelSettings, rung: number, withholdKey: boolean): ModelAnswer<VscodeDetail> | Promise<ModelAnswer<VscodeDetail>>;
  /** The workspace writes go through; `label` is the editor's undo entry. */
  workspace(label?: string): Workspace;
  logger: Logger;
}

export function launchingEngine(root: string, storageDir: string, ports: EnginePorts): FolderEngine {
  const { logger } = ports;
  return {
    storageDir,
    prepareRun: (settings, extras, ownWork) =>
      prepareRun(
        { root, storageDir, frontEnd: extras.frontEnd ?? 'vscode', ...(extras.provider ? { provider: extras.provider } : {}) },
        { settings, ownWork, logger, keys: (s, ownModel) => ports.keys(s, ownModel), model: (m, rung, _s, withholdKey) => ports.model(m, rung, withholdKey), workspace: () => ports.workspace() },
      ),
    prepareChecks: (settings) => prepareChecks({ root, storageDir, frontEnd: 'vscode' }, { settings, logger }),
    workspace: (label) => ports.workspace(label),
    restoring: () => Promise.resolve(restoring),
  };
}
