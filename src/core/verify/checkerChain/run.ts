// A chain of static checkers run part by part (./plan says when that is exact): each part in turn,
// within what is left of the check's timeout, stopping at the first that fails, as the shell's `&&`
// does. The result is the one `npm run … --silent` gives: the parts' output one after the other, cut
// at the check's limit as one output, and the failing part's exit code. Where the shell would have
// said something of its own, the caller runs the command as written: a part that could not start (a
// tool missing: what the shell says is missing) or was ended by a signal (the shell's "Terminated").
import type { ParserId } from '../../types';
import type { RunCommandOptions, RunCommandResult } from '../runner';
import { CappedOutput } from '../runner';
import type { ChainPart, CheckerChain } from './plan';
import { checkerChain, partKey } from './plan';

export interface PartRun {
  r: RunCommandResult;
  /** How it ran, where it ran other than cold (the warm linter). */
  note?: string;
}

/** Runs part `index` within `timeoutMs`. */
export type RunPart = (part: ChainPart, index: number, timeoutMs: number) => Promise<PartRun>;

/** The chain's run as one command's, with what ran how; `{fallback}` where a part could not start. */
export async function runCheckerChain(chain: CheckerChain, o: { timeoutMs: number; outputLimitBytes: number }, runPart: RunPart): Promise<{ r: RunCommandResult; note: string } | { fallback: string }> {
  const started = Date.now();
  const output = new CappedOutput(o.outputLimitBytes);
  const r: RunCommandResult = { exitCode: 0, signal: null, output: '', truncated: false, timedOut: false, cancelled: false, durationMs: 0, pid: undefined, strays: [] };
  const ran: string[] = [];
  for (const [i, part] of chain.parts.entries()) {
    const left = o.timeoutMs - (Date.now() - started);
    if (left <= 0) {
      Object.assign(r, { timedOut: true, exitCode: null });
      break;
    }
    const { r: p, note } = await runPart(part, i, left);
    if (p.spawnError !== undefined) return { fallback: `\`${part.line}\` could not start (${p.spawnError})` };
    // The shell reports a part ended by a signal in its own words ("Terminated"), which are part of the output.
    if (p.exitCode === null && p.signal !== null && !p.timedOut && !p.cancelled) return { fallback: `\`${part.line}\` was ended by ${p.signal}` };
    output.push(p.output);
    r.truncated ||= p.truncated;
    r.strays.push(...p.strays);
    ran.push(`\`${part.line}\`${note !== undefined ? ` (${note})` : ''}`);
    if (p.timedOut || p.cancelled) {
      Object.assign(r, { timedOut: p.timedOut, cancelled: p.cancelled, exitCode: null, signal: p.signal });
      break;
    }
    if (p.exitCode !== 0) {
      r.exitCode = p.exitCode;
      break;
    }
  }
  const all = output.finish();
  Object.assign(r, { output: all.text, truncated: r.truncated || all.truncated, durationMs: Date.now() - started });
  const stopped = ran.length < chain.parts.length && !r.timedOut && !r.cancelled ? `, stopped there (exit ${r.exitCode}), as \`&&\` stops` : '';
  return { r, note: `its chain ran part by part, without npm and a shell: ${ran.join(', then ')}${stopped}` };
}

/** A check's run options, its environment given (../runner checkEnv). */
export type PartOptions = RunCommandOptions & { env: Record<string, string> };

/** What running a check part by part needs from the verifier: a part's warm run (ESLint's warm linter) and a cold one. */
export interface PartRunners {
  warm(check: string, part: ChainPart, o: PartOptions): Promise<{ r: RunCommandResult; note: string } | { fallback: string } | undefined>;
  cold(o: RunCommandOptions): Promise<RunCommandResult>;
  debug(line: string): void;
}

/**
 * A full run of `check` (its command's `run` options) part by part where ./plan finds its command a
 * chain of static checkers; undefined where the command runs as written.
 */
export async function runInParts(check: string, parser: ParserId, run: PartOptions, x: PartRunners): Promise<{ r: RunCommandResult; note: string } | undefined> {
  const chain = checkerChain(run.command, run.cwd, parser);
  if ('reason' in chain) return undefined;
  const out = await runCheckerChain(chain, run, async (part, i, timeoutMs) => {
    const o: PartOptions = { ...run, command: part.line, argv: part.argv, timeoutMs };
    const warm = part.tool === 'eslint' ? await x.warm(partKey(check, i), part, o) : undefined;
    if (warm && 'fallback' in warm) x.debug(`check ${check}: \`${part.line}\` runs cold: ${warm.fallback}`);
    return warm && 'r' in warm ? warm : { r: await x.cold(o) };
  });
  if ('fallback' in out) {
    x.debug(`check ${check}: its command runs as written: ${out.fallback}`);
    return undefined;
  }
  return out;
}
