// Builds the engine for one workspace folder from its settings: the run, a check-only verifier, and
// the workspace restores write through. The controller asks this; commands never build the engine.
// This is the one place the extension maps settings onto the core (to become the core's factory).
import { Run } from '../core/loop/run';
import type { ModelProvider } from '../core/model/provider';
import { ProviderFatalError } from '../core/model/provider';
import type { Settings } from '../core/settings';
import type { CheckSpec, Logger } from '../core/types';
import { resolveChecks } from '../core/verify/discover';
import { Verifier } from '../core/verify/verifier';
import type { CheckVerifier, FolderEngine, RunLike, RunWiring } from './controller';
import { createModelProvider } from './modelProvider';
import type { ApiKeys } from './secrets';
import { VscodeWorkspace } from './vscodeWorkspace';

export interface EngineDeps {
  keys: ApiKeys;
  logger: Logger;
}

/** A provider for a run that will stop at preflight: never asked, it says why if it were. */
function unavailableProvider(problem: string): ModelProvider {
  return {
    label: 'unavailable',
    complete: () => Promise.reject(new ProviderFatalError(problem)),
  };
}

export function folderEngine(root: string, storageDir: string, deps: EngineDeps): FolderEngine {
  const { logger } = deps;

  /** The configured checks, else those discovered in the folder (tsconfig, ESLint config, scripts.test). */
  const verifierFor = (s: Settings): { verifier: Verifier; checks: CheckSpec[]; notes: string[] } => {
    const { checks, discovered, notes } = resolveChecks(root, s.checks);
    if (discovered) logger.info(`checks discovered in ${root}: ${checks.map((c) => `${c.name} (${c.command})`).join(', ') || 'none'}${notes.length ? `; ${notes.join('; ')}` : ''}`);
    const verifier = new Verifier({ root, checks, parallel: s.parallelChecks, outputLimitKb: s.outputLimitKb, flakyReruns: s.flakyReruns, storageDir, logger });
    return { verifier, checks, notes: discovered ? notes : [] };
  };

  return {
    storageDir,
    async createRun(settings: Settings, instruction: string, wiring: RunWiring): Promise<RunLike> {
      const choice = await createModelProvider(settings, root, deps.keys, logger);
      if (!choice.ok) logger.warn(`model: ${choice.problem}`);
      const { verifier, checks, notes } = verifierFor(settings);
      const problems = [...(choice.ok ? [] : [choice.problem]), ...(checks.length === 0 ? notes : [])];
      return new Run({
        workspace: new VscodeWorkspace(root, logger),
        verifier,
        provider: choice.ok ? choice.provider : unavailableProvider(choice.problem),
        // The run records the checks it used, discovered or configured.
        settings: { ...settings, checks },
        storageDir,
        signal: wiring.signal,
        onEvent: wiring.onEvent,
        logger,
        ...(instruction ? { instruction } : {}),
        ...(problems.length > 0 ? { preflightProblems: problems } : {}),
      });
    },
    createVerifier(settings: Settings): CheckVerifier {
      const { verifier, notes } = verifierFor(settings);
      return {
        // The discovery notes say why no check was found, next to the preflight problem they explain.
        preflight: () => {
          const problems = verifier.preflight();
          return problems.length > 0 ? [...problems, ...notes] : [];
        },
        verify: (signal) => verifier.verify(signal),
      };
    },
    workspace: (label: string) => new VscodeWorkspace(root, logger, label),
  };
}
