// What kind of check a script is (a type check, a lint, tests), read from what it runs rather than
// from its name: `test:eslint` lints, `test:types` and `check:types` type-check, `test:lib` runs
// vitest. Discovery asks it two things at a workspace root: whether a root-wide tsc or eslint would
// only repeat (or contradict) what a script or a fan-out target of the project already checks, and
// which of a package's scripts the root's fan-out leaves out of CI (its target list names others of
// the same kind).
import type { ParserId } from '../types';
import { TEST_RUNNER_IDS, resolveScript } from './infer';
import { tscWritesNothing } from './tscEmit';

export type CheckKind = 'typecheck' | 'lint' | 'test';

/** Type checkers: tsc (also run as `node …/typescript57/lib/tsc.js`), vue-tsc, tsgo, svelte-check, glint. */
const TYPECHECKER = /^(?:\S*\/)?(?:tsc|vue-tsc|tsgo|svelte-check|glint)(?:\.js)?(?:\s|$)|^node\s+(?:\S*\/)?(?:tsc|vue-tsc)(?:\.js)?(?:\s|$)/;
/** Linters: ESLint (and gts, xo, standard, which run it), oxlint, Biome's lint. */
const LINTER = /^(?:\S*\/)?(?:eslint|oxlint|xo|standard|next\s+lint)(?:\s|$)|^(?:\S*\/)?(?:gts\s+(?:lint|check)|biome\s+(?:lint|check|ci))(?:\s|$)/;
/** Type checkers that may emit: a check only where they write nothing (`--noEmit`, or `noEmit` in the tsconfig they read: ./tscEmit); the others never emit. */
const EMITS = /^(?:\S*\/)?(?:node\s+\S*\/)?(?:tsc|vue-tsc|tsgo)(?:\.js)?(?:\s|$)/;
/** Flags that make a run a build or a watch, not a check (`lint: eslint . --fix` still lints: its check leaves `--fix` out). */
const NOT_CHECK_FLAGS = /(?:^|\s)(?:-w|--watch|--emitDeclarationOnly|--declaration|--outDir)(?:[=\s]|$)/;
/** Script names that are builds, servers or writers, whatever they run. */
export const NOT_A_CHECK = /(?:^|[:-])(?:build|dev|start|serve|watch|clean|fix|format|write|deploy|release|publish|docs)(?:$|[:-])/;

function stepKind(command: string, parser: ParserId): CheckKind | undefined {
  if (parser === 'tsc' || TYPECHECKER.test(command)) return 'typecheck';
  if (parser === 'eslint' || parser === 'biome' || parser === 'oxlint' || LINTER.test(command)) return 'lint';
  if (TEST_RUNNER_IDS.has(parser)) return 'test';
  return undefined;
}

/** The kind a name says, for a script or target whose program no rule knows (`ng test`, an nx executor). */
export function kindByName(name: string): CheckKind | undefined {
  if (/(?:^|[:_-])(?:lint|eslint|oxlint|biome|xo)(?:$|[:_-])/.test(name)) return 'lint';
  if (/(?:^|[:_-])(?:types?|tsc|typecheck|type-check|check-types|typings)(?:$|[:_-])/.test(name)) return 'typecheck';
  if (/(?:^|[:_-])(?:tests?|spec|unit|e2e)(?:$|[:_-])/.test(name)) return 'test';
  return undefined;
}

/**
 * The kinds of check a script is: those of the tools it runs (hooks aside), else the one its name
 * says when it runs no tool a rule knows. Empty for builds and writers.
 */
export function scriptKinds(scripts: Readonly<Record<string, string>>, name: string): Set<CheckKind> {
  const out = new Set<CheckKind>();
  if (scripts[name] === undefined || NOT_A_CHECK.test(name) || NOT_CHECK_FLAGS.test(scripts[name]!)) return out;
  for (const s of resolveScript({ ...scripts }, name)) {
    if (s.hook === true || s.fanOut !== undefined || NOT_CHECK_FLAGS.test(s.command)) continue;
    const k = stepKind(s.command, s.parser);
    if (k !== undefined) out.add(k);
  }
  const byName = out.size === 0 ? kindByName(name) : undefined;
  if (byName !== undefined) out.add(byName);
  return out;
}

/**
 * Scripts that only type-check without writing (every step, hooks aside, a type checker in check
 * mode: `types: vue-tsc --noEmit`, `check:ts: tsc --noEmit -p .`), whatever their name: those no
 * other such script, nor a script in `skip` (the tests, found as such), runs as part of itself.
 */
export function typecheckEntryPoints(scripts: Readonly<Record<string, string>>, skip: ReadonlySet<string>, dir: string): string[] {
  const checks = Object.keys(scripts).filter((n) => {
    if (skip.has(n) || NOT_A_CHECK.test(n) || /^(?:pre|post)/.test(n)) return false;
    const steps = resolveScript({ ...scripts }, n).filter((s) => s.hook !== true);
    return steps.length > 0 && steps.every((s) => TYPECHECKER.test(s.command) && !NOT_CHECK_FLAGS.test(s.command) && (!EMITS.test(s.command) || tscWritesNothing(s.command, dir)));
  });
  const runBy = [...checks, ...[...skip].filter((n) => scripts[n] !== undefined)];
  return checks.filter((n) => !runBy.some((m) => m !== n && resolveScript({ ...scripts }, m).some((s) => s.script === n)));
}

/** The targets a workspace root's fan-outs run, each with the kinds of check it is in the packages. */
export interface FanOutTargets {
  /** Targets run by the root's check scripts (test, typecheck, lint): a package's checks among them. */
  names: string[];
  /** Every target any root script fans out to (`test:eslint: nx affected --target=test:eslint`), by kind. */
  byKind: Map<CheckKind, string[]>;
  /** The kinds the check targets (`names`) cover: a package's script of such a kind that is not one of them is not CI's. */
  covered: Set<CheckKind>;
}

/**
 * What a target is: what the packages that define it run (`test:eslint` → eslint → a lint), else
 * (no package has a script of that name: an nx executor, a turbo task) what its name says.
 */
export function targetKinds(target: string, packageScripts: readonly Readonly<Record<string, string>>[]): Set<CheckKind> {
  const defined = packageScripts.filter((s) => s[target] !== undefined);
  if (defined.length === 0) {
    const k = NOT_A_CHECK.test(target) ? undefined : kindByName(target);
    return new Set(k !== undefined ? [k] : []);
  }
  return new Set(defined.flatMap((s) => [...scriptKinds(s, target)]));
}

/**
 * The targets of a root's fan-outs (`fanned`: each root script and the targets it runs), classified
 * by what the packages run under each name; `roles` are the root's check scripts, whose targets are
 * the packages' checks.
 */
export function rootTargets(fanned: ReadonlyMap<string, readonly string[]>, roles: readonly string[], packageScripts: readonly Readonly<Record<string, string>>[]): FanOutTargets {
  const checks = (ts: readonly string[]): string[] => [...new Set(ts)].filter((t) => !NOT_A_CHECK.test(t));
  const names = checks(roles.flatMap((r) => fanned.get(r) ?? []));
  const kinds = new Map(checks([...fanned.values()].flat()).map((t) => [t, targetKinds(t, packageScripts)] as const));
  const byKind = new Map<CheckKind, string[]>();
  for (const [t, ks] of kinds) for (const k of ks) byKind.set(k, [...(byKind.get(k) ?? []), t]);
  return { names, byKind, covered: new Set(names.flatMap((t) => [...(kinds.get(t) ?? [])])) };
}

/** Why a package's script is left out: it is of a kind the root's fan-out covers, and not among its targets. */
export function outsideTargets(targets: FanOutTargets | undefined, scripts: Readonly<Record<string, string>>, name: string): string | undefined {
  if (targets === undefined || targets.names.length === 0 || targets.names.includes(name)) return undefined;
  const kinds = [...scriptKinds(scripts, name)].filter((k) => targets.covered.has(k));
  if (kinds.length === 0) return undefined;
  const of = kinds.map((k) => `${KIND_WORDS[k]} (${(targets.byKind.get(k) ?? []).filter((t) => targets.names.includes(t)).join(', ')})`).join(', ');
  return `the workspace root's fan-out runs its own ${of} in each package, not scripts.${name}`;
}

export const KIND_WORDS: Readonly<Record<CheckKind, string>> = { typecheck: 'type check', lint: 'lint', test: 'tests' };

/** A formatter or checker in check mode: its failures are the project's (`prettier --check`, `biome ci`, `dprint check`). */
const FORMAT_CHECK = /^(?:\S*\/)?(?:prettier\s(?:.*\s)?(?:--check|-c|--list-different|-l)(?:\s|$)|biome\s+(?:check|ci|format)(?:\s|$)|dprint\s+check(?:\s|$))/;
/** A flag that makes a formatter or linter write what it would report. */
export const WRITES_FLAG = /(?:^|\s)--(?:write|fix|apply|apply-unsafe|unsafe)(?:[=\s]|$)|(?:^|\s)-w(?:\s|$)/;

/** The steps script `name` runs itself (not its npm pre/post hooks) that check formatting without writing. */
export function formatCheckSteps(scripts: Record<string, string>, name: string): string[] {
  return resolveScript(scripts, name)
    .filter((s) => s.hook !== true && FORMAT_CHECK.test(s.command) && !WRITES_FLAG.test(s.command))
    .map((s) => s.command);
}
