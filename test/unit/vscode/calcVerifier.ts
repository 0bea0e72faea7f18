// The real verifier for the extension's unit tests on the calc fixture, with a real check that
// costs a few ms (test/support/checks/calc.sh): green when mul multiplies, else one
// failure quoting mul's body. The fixture's own tsc and node:test run in test/unit/loop/walking.
import { defaultSettings } from '../../../src/core/settings';
import { Verifier } from '../../../src/core/verify/verifier';
import { calcCheckCommand } from '../../support/checks';

export const CALC = 'src/calc.ts';

/**
 * With `hold`, each verification waits while that file exists: create it to hold a run in flight,
 * delete it to let the run go on. Keep it outside the project (the run must not see it).
 */
export function calcVerifier(root: string, storageDir: string, hold?: string): Verifier {
  const s = defaultSettings();
  const checks = [{ name: 'test', command: calcCheckCommand(hold), parser: 'tap' as const }];
  return new Verifier({ root, checks, parallel: s.parallelChecks, outputLimitKb: s.outputLimitKb, flakyReruns: s.flakyReruns, storageDir });
}
