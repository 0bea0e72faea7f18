// What a test check whose chain has parts that are checks of their own (./chainOnce) runs in a pass,
// and when it starts (issue 39). The rest of the chain (`node --test` after `eslint src && `) stands
// for the chain only once those checks passed; waiting for them before starting it made the pass
// last the lint's time plus the tests'. Where checks run side by side, the rest starts beside them
// instead: the parts are static checkers that write nothing (chainOnce takes out no other kind), so
// the rest sees the same bytes either way. Only a rest that writes nothing itself starts early (a
// build in it could be read half written by the lint beside it), or only a coverage report that no
// other check reads (the check runs beside the others for the same reason: ./writers). If a part does not pass, the early
// run is cancelled (its processes killed, its result dropped) and the whole chain runs as written,
// as it did before: the chain's failures are then its own. The verdict is the one the waiting gave.
import * as path from 'node:path';
import type { CheckResult, CheckSpec } from '../types';
import type { ChainOnce } from './chainOnce';
import { partsPassed } from './chainOnce';
import { writesFiles } from './writers';

/** The results of the other checks of the pass, by name (each started once). */
export type PassRun = (name: string) => Promise<CheckResult>;

export interface Chained<T> {
  result: T;
  /** What ran, for the trace (undefined where the check is no such chain). */
  note?: string;
}

/**
 * Runs `work` on what a run of `spec` runs in this pass: the rest of its chain (`once`) where the
 * checks that run its other parts passed (their results through `of`), else its own command.
 * `parallel`: the checks of the pass run side by side, so the rest may start beside its parts.
 */
export async function runChained<T>(
  spec: CheckSpec,
  o: { once: ChainOnce | undefined; of: PassRun | undefined; parallel: boolean; root: string; signal: AbortSignal | undefined; coverageBeside?: boolean },
  work: (run: CheckSpec, signal: AbortSignal | undefined) => Promise<T>,
): Promise<Chained<T>> {
  const { once, of } = o;
  if (!once || !of) return { result: await work(spec, o.signal) };
  const rest: CheckSpec = { ...spec, command: once.rest };
  const early = o.parallel && (o.coverageBeside === true || writesFiles(once.rest, path.resolve(o.root, spec.cwd ?? '.')) === undefined) ? new AbortController() : undefined;
  const ahead = early ? work(rest, o.signal ? AbortSignal.any([o.signal, early.signal]) : early.signal) : undefined;
  // Handled from the start: it may fail before the parts are in, and is awaited only then.
  ahead?.catch(() => undefined);
  const parts = await Promise.all(once.parts.map((p) => of(p.check)));
  const names = once.parts.map((p) => p.check).join(', ');
  if (!partsPassed(parts)) {
    if (early && ahead) {
      early.abort();
      await ahead.catch(() => undefined);
    }
    return { result: await work(spec, o.signal), note: `${names} did not pass: the whole chain ran, as written` };
  }
  const result = await (ahead ?? work(rest, o.signal));
  const beside = ahead ? ', started beside them' : '';
  return { result, note: `its chain's ${once.parts.map((p) => `\`${p.part}\``).join(', ')} ran once, as ${names} (passed): the rest ran alone (\`${once.rest}\`)${beside}` };
}
