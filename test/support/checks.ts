// Real checks that cost a few ms: small awk and sh programs in test/support/checks/ that print TAP,
// run by the real verifier (runner, TAP parser, identity, flake re-runs) where a scripted verifier
// would skip all of that. A node script would do too, at 50-100 ms of CPU a run.
import * as path from 'node:path';
import { REPO } from './fixtures';

export const CHECKS_DIR = path.join(REPO, 'test', 'support', 'checks');

function commandLine(argv: string[]): string {
  // A plain argv runs without a shell; an argument with spaces would need quoting, and a shell.
  return argv.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

/** One TAP test per `key=value` line of `file` (relative to the project), failing unless the value is `ok`. */
export function valuesCheckCommand(file: string): string {
  return commandLine(['awk', '-f', path.join(CHECKS_DIR, 'values.awk'), file]);
}

/** The calc fixture's `mul` test; with `hold`, it waits while that file exists. */
export function calcCheckCommand(hold?: string): string {
  return commandLine(['sh', path.join(CHECKS_DIR, 'calc.sh'), ...(hold === undefined ? [] : [hold])]);
}
