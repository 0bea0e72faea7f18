// The loop's view of its checks with held-out tests withheld by name (holdout.ts, the split within one
// file): the real verifier runs every check as the project defines it, then the failures of the
// held-out tests (matched by check, file and full title, the identity the runner's parser gives them)
// are dropped before the run sees the result. A test check that failed only because of held-out tests
// counts as passing in that view, so the held-out tests neither show in the prompt nor stop the loop
// from going green; the final verdict (runPair) runs the full checks unfiltered.
//
// Why filter the failures rather than the runner's own name filter (`--test-name-pattern`, `-t`,
// `--grep --invert`): the filter works the same for every runner whose parser names tests, needs no
// rewriting of a check's command (often `npm test`, whose flags are not ours to add), and the identity
// is the one the verdicts already record.
import type { VerifierPort } from '../loop/run';
import type { CheckResult, Failure, VerifyResult } from '../types';
import { failureIdentity } from '../verify/identity';
import type { TestRef } from './holdout';

const keyOf = (check: string, file: string | undefined, id: string | undefined): string => JSON.stringify([check, file ?? null, id ?? null]);

export function withholdTests(inner: VerifierPort, tests: readonly TestRef[], root: string): VerifierPort {
  const held = new Set(tests.map((t) => keyOf(t.check, t.file, t.id)));
  const isHeld = (f: Failure): boolean => held.has(keyOf(f.check, f.file, f.id));
  // The run hands back our filtered result as `previous`; the verifier compares with what it really saw
  // (else every held-out failure would look new and be re-run as a possible flake at every step).
  const raw = new WeakMap<VerifyResult, VerifyResult>();
  const view = (r: VerifyResult): VerifyResult => {
    const withheld = new Set<string>();
    const checks: CheckResult[] = r.checks.map((c) => {
      const failures = c.failures.filter((f) => !isHeld(f));
      if (failures.length < c.failures.length) withheld.add(c.name);
      return { ...c, failures, flaky: c.flaky.filter((f) => !isHeld(f)) };
    });
    const failures = r.failures.filter((f) => !isHeld(f));
    // A check that exited non-zero with only held-out failures passes in this view; any other non-zero exit (a crash, a timeout) still blocks.
    const passes = (c: CheckResult): boolean => c.exitCode === 0 || (withheld.has(c.name) && c.failures.length === 0 && !c.timedOut && !c.cancelled);
    const green = failures.length === 0 && checks.every(passes);
    const out: VerifyResult = { ...r, green, failures, flaky: r.flaky.filter((f) => !isHeld(f)), checks, failureHash: failureIdentity(failures, { root }) };
    raw.set(out, r);
    return out;
  };
  return {
    preflight: () => inner.preflight(),
    verify: async (signal, options) => {
      const previous = options?.previous ? (raw.get(options.previous) ?? options.previous) : options?.previous;
      return view(await inner.verify(signal, options ? { ...options, ...(options.previous !== undefined ? { previous } : {}) } : undefined));
    },
    ...(inner.warm ? { warm: () => inner.warm!() } : {}),
    ...(inner.release ? { release: () => inner.release!() } : {}),
  };
}
