// Finds a workspace's checks when none are configured (DESIGN §4): the project's own scripts first
// (typecheck, lint, test), then its tsconfig.json and ESLint config; in a monorepo, each package's
// own scripts, and those of the packages that depend on the one a run is in.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readJsonObjectIfPresent, readTextIfPresent } from '../fileText';
import { parse as parseJsonc } from 'jsonc-parser';
import type { CheckSpec, ParserId } from '../types';
import { QUIET, parserForCommand, pnpmSelected, resolveScript } from './infer';
import type { CheckKind, FanOutTargets } from './checkKinds';
import { KIND_WORDS, WRITES_FLAG, formatCheckSteps, outsideTargets, rootTargets, scriptKinds, typecheckEntryPoints } from './checkKinds';
import { planScript } from './scriptPlan';
import { findExecutable } from './executable';
import { missingTool } from './missingTool';
import type { PnpRunner } from './packageManager';
import { declares, pnpRunner } from './packageManager';
import type { Workspace, WorkspacePackage } from './workspaces';
import { checkPrefix, dependentsOf, enclosingWorkspace, workspaceAt } from './workspaces';
import type { PrerequisitePlan } from './taskGraph/prerequisites';
import { checkPrerequisites, noPrerequisites } from './taskGraph/discovered';

/** Where a check came from and which parser reads it, for `check --explain` and `check --json`. */
export interface CheckOrigin {
  /** The script, config or setting the check comes from: `package.json scripts.lint`, `tsconfig.json`, `fixUntilGreen.checks`. */
  source: string;
  parser: ParserId;
  /** Why that parser: the tool the script ends in, the chain it follows, a formatter added. */
  reason: string;
  /** The workspace package the check belongs to, in a monorepo. */
  package?: string;
  /** What it runs first because the project's task graph says so (`runs \`build\` in packages/core first: turbo.json typecheck dependsOn build`). */
  dependsOn?: string[];
}

export interface Discovery {
  checks: CheckSpec[];
  /** Why each check was added or left out, for `check` and the run's log. */
  notes: string[];
  /** Per check name, where it came from (DESIGN §4: scripts first, then configs). */
  origins: Record<string, CheckOrigin>;
  /** What the checks run first, from the project's task graph (turbo, Nx `dependsOn`). */
  prerequisites: PrerequisitePlan;
}

const ESLINT_FLAT = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
const ESLINT_LEGACY = ['.eslintrc', '.eslintrc.js', '.eslintrc.cjs', '.eslintrc.yaml', '.eslintrc.yml', '.eslintrc.json'];
/** What `npm init` writes when there are no tests: not a check. */
const NPM_PLACEHOLDER = /no test specified/;
/** Scripts that type-check, in the order looked for. */
const TYPECHECK_SCRIPTS = ['typecheck', 'type-check', 'check-types', 'types:check', 'check:types', 'tsc'];
/** Scripts that run the tests, in the order looked for: the first found is the check. */
const TEST_SCRIPTS = ['test', 'test:unit', 'test:all', 'tests'];
/** `lint:*` scripts that change files or only format: not checks. */
const WRITES = /(?:^|[:-])(?:fix|format|write|prettier)(?:$|[:-])/;

interface PackageJson {
  scripts?: Record<string, string>;
  eslintConfig?: unknown;
}

/** Where checks are looked for: the run's own folder, or a workspace package's (a dependent's, seen from a sibling). */
interface Scope {
  /** Absolute folder. */
  dir: string;
  /** The check's `cwd`, relative to the run's folder; undefined for the run's folder itself. */
  cwd?: string;
  /** Check-name prefix: '' for the run's folder, `<package name>:` for another package. */
  prefix: string;
  /** How the folder's package.json is named in origins and notes. */
  label: string;
  /** The workspace package, in a monorepo. */
  pkg?: string;
  /** Whether a tsconfig.json or ESLint config with no script may stand in (only for the run's own folder). */
  infer: boolean;
  /**
   * Scripts run directly rather than through npm: a workspace root's script whose fan-out
   * (`pnpm -r test`) is left to the packages, reduced to the steps it runs of its own.
   */
  direct?: Record<string, string>;
  /** Yarn Plug'n'Play: no node_modules, the project's yarn runs its scripts and resolves its tools. */
  pnp?: PnpRunner;
  /** At a workspace root: the packages, and the root's scripts that fan out to them with the targets each runs (class F). */
  workspace?: Workspace;
  fannedOut?: Map<string, string[]>;
  /** In a package: what the workspace root's fan-out runs in each package (a script of a kind it covers and not among them is not CI's). */
  targets?: FanOutTargets;
}

class Found {
  checks: CheckSpec[] = [];
  notes: string[] = [];
  origins: Record<string, CheckOrigin> = {};
  /** Per check, the folder and the script (task) it runs, for the task graph. */
  tasks: { check: string; dir: string; task: string }[] = [];

  add(scope: Scope, check: { name: string; command: string; parser: ParserId }, origin: Omit<CheckOrigin, 'parser' | 'package'>, task?: string): void {
    let name = scope.prefix + check.name;
    // A name another folder's check has (a root script `web:test` beside the package web's `test`): named by its folder too.
    if (this.origins[name] !== undefined) {
      const taken = name;
      for (let n = 1; this.origins[name] !== undefined; n++) name = `${scope.cwd ?? '.'}:${check.name}${n > 1 ? `#${n}` : ''}`;
      this.notes.push(`${name}: named by its folder: ${taken} is another check's name`);
    }
    this.checks.push({ ...check, name, ...(scope.cwd !== undefined ? { cwd: scope.cwd } : {}) });
    this.origins[name] = { ...origin, parser: check.parser, ...(scope.pkg !== undefined ? { package: scope.pkg } : {}) };
    if (task !== undefined) this.tasks.push({ check: name, dir: scope.dir, task });
  }

  note(scope: Scope, text: string): void {
    this.notes.push(scope.prefix + text);
  }
}

function readPackageJson(scope: Scope, found: Found): PackageJson | undefined {
  const text = readTextIfPresent(path.join(scope.dir, 'package.json'));
  if (text === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as PackageJson) : undefined;
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    found.note(scope, `${scope.label} is not valid JSON (${e.message}): its scripts were not looked at`);
    return undefined;
  }
}

/** A package.json's scripts that run something (a `scripts` that is no object has none). */
function scriptsOf(pkg: { scripts?: unknown } | undefined): Record<string, string> {
  const scripts: Record<string, string> = {};
  const all = typeof pkg?.scripts === 'object' && pkg.scripts !== null && !Array.isArray(pkg.scripts) ? (pkg.scripts as Record<string, unknown>) : {};
  for (const [k, v] of Object.entries(all)) if (typeof v === 'string' && v.trim() !== '') scripts[k] = v;
  return scripts;
}

/** How a chain reads, for the explanation: `build: tsc && test-coverage: node test/index.js`. */
function describeSteps(name: string, scripts: Record<string, string>): string {
  return resolveScript(scripts, name)
    .map((s) => (s.script !== undefined && s.script !== name ? `${s.script}: ${s.command}` : s.command))
    .join(' && ');
}

/**
 * A check that runs the project's script `name` (through npm, or directly for a machine-readable
 * report); a script that is one pnpm selector (`pnpm run "/^test:/"`) stands for the scripts it
 * matches, each a check of its own (`via`: the selector's script, for the origin).
 */
function addScript(found: Found, scope: Scope, scripts: Record<string, string>, name: string, kind: string, via?: string, task = name): void {
  const outside = via === undefined ? outsideTargets(scope.targets, scripts, name) : undefined;
  if (outside !== undefined) {
    // An example app's `test: ng test` beside `nx run-many --targets=test:lib`: CI never runs it.
    found.note(scope, `${name}: ${scope.label} scripts.${name} ("${scripts[name]}") is not run: ${outside}`);
    return;
  }
  if (via === undefined && addSelected(found, scope, scripts, name, kind)) return;
  const missing = scope.pkg !== undefined && scope.pnp === undefined ? missingTool(scripts, name, scope.dir) : undefined;
  if (missing !== undefined) {
    // A package's script whose program is nowhere (an example app's `ng test` with no Angular CLI
    // installed) would exit 127 `command not found`: a setup gap, not a failure of the code.
    found.note(scope, `${name}: ${scope.label} scripts.${name} ("${scripts[name]}") runs \`${missing}\`, which is not installed (not in node_modules/.bin or on PATH): not installed, not checked`);
    return;
  }
  const viaNpm = scope.direct?.[name] ?? (scope.pnp !== undefined ? `${scope.pnp.yarn} run ${name}` : name === 'test' ? 'npm test --silent' : `npm run ${name} --silent`);
  const plan = planScript(scripts, name, scope.dir, viaNpm);
  // Under Plug'n'Play a tool run directly (`eslint --format json .`) is found only through yarn.
  const command = scope.pnp !== undefined && plan.command !== viaNpm ? `${scope.pnp.yarn} run ${plan.command}` : plan.command;
  if (scope.pnp !== undefined) plan.notes.push(`run with the project's yarn (${scope.pnp.from}): it installs with Plug'n'Play, so npm finds none of its tools`);
  found.add(scope, { name, command, parser: plan.parser }, { source: `${scope.label} scripts.${name}${via !== undefined ? ` (run by ${via})` : ''}`, reason: plan.reason }, task);
  const chain = plan.steps.length > 1 ? `, resolved to ${describeSteps(name, scripts)}` : '';
  found.note(scope, `${name}: ${scope.label} scripts.${name} ("${scripts[name]}")${chain}; ${kind}, read with the ${plan.parser} parser: ${plan.reason}`);
  for (const n of plan.notes) found.note(scope, `${name}: ${n}`);
}

/**
 * pnpm runs each script a selector matches, in one process whose output prefixes every line and
 * which npm's `--silent` quiets entirely: no parser reads that. The scripts are run one by one
 * instead, each read by its own parser, those already checked (a lint entry point) not again;
 * pnpm itself is not needed. False when `name` is not one selector call matching a script.
 */
function addSelected(found: Found, scope: Scope, scripts: Record<string, string>, name: string, kind: string): boolean {
  const selected = pnpmSelected(scripts, name);
  if (selected === undefined || selected.names.length === 0) return false;
  const checked = selected.names.filter((n) => found.checks.some((c) => c.name === scope.prefix + n));
  const again = checked.length > 0 ? `; ${checked.join(', ')} ${checked.length > 1 ? 'are' : 'is'} already a check, not run twice` : '';
  found.note(scope, `${name}: ${scope.label} scripts.${name} ("${scripts[name]}") is a pnpm selector: pnpm runs every script whose name matches ${selected.pattern} (${selected.names.join(', ')}); each runs as a check of its own, read by its own parser and run once (pnpm itself is not needed)${again}`);
  // Each runs as part of the selector's script: the task graph knows that one (`test:types`).
  for (const n of selected.names) if (!checked.includes(n)) addScript(found, scope, scripts, n, kind, `scripts.${name}: pnpm ${selected.pattern}`, name);
  return true;
}

/** A solution-style tsconfig (project references): `tsc -b` builds and checks each referenced project. */
function tscCommand(dir: string): { command: string; references: boolean } {
  const config = parseJsonc(readFileSync(path.join(dir, 'tsconfig.json'), 'utf8')) as { references?: unknown } | undefined;
  const references = Array.isArray(config?.references) && config.references.length > 0;
  return { command: references ? 'tsc -b' : 'tsc --noEmit -p tsconfig.json', references };
}

function typecheckChecks(found: Found, scope: Scope, scripts: Record<string, string>): void {
  const script = TYPECHECK_SCRIPTS.find((n) => scripts[n] !== undefined);
  if (script !== undefined) {
    addScript(found, scope, scripts, script, 'the project\'s own type check');
    return;
  }
  // A type check under another name (`types: vue-tsc --noEmit`, `test:types: tsc --noEmit`): found by what it runs.
  // Not the tests' nor the lint's own scripts (`lint:types: tsc --noEmit` is found as a lint), nor what they run.
  const named = typecheckEntryPoints(scripts, new Set([...TEST_SCRIPTS, ...Object.keys(scripts).filter((n) => n === 'lint' || n.startsWith('lint:'))]), scope.dir);
  for (const name of named) {
    found.note(scope, `${name}: scripts.${name} ("${scripts[name]}") runs a type checker without writing files: the project's type check, found by what it runs rather than by its name`);
    addScript(found, scope, scripts, name, 'the project\'s own type check');
  }
  if (!scope.infer || !existsSync(path.join(scope.dir, 'tsconfig.json'))) return;
  if (named.length > 0) {
    found.note(scope, `tsc: tsconfig.json found, but the project type-checks with its own script${named.length > 1 ? 's' : ''} (${named.join(', ')}): that is what runs`);
    return;
  }
  const delegated = delegatedRole(scope, 'typecheck');
  if (delegated !== undefined) {
    found.note(scope, `tsc: tsconfig.json found, but ${delegated}: no root-wide tsc is added (it would check what no package's own type check covers)`);
    return;
  }
  if (scope.pnp !== undefined && declares(scope.dir, 'typescript')) {
    const { command } = tscCommand(scope.dir);
    found.add(scope, { name: 'tsc', command: `${scope.pnp.yarn} run ${command}`, parser: 'tsc' }, { source: 'tsconfig.json (no typecheck script)', reason: `the workspace's own tsc, resolved by its yarn (${scope.pnp.from}): Plug'n'Play, no node_modules` });
    found.note(scope, `tsc: tsconfig.json found and no typecheck script; type check with the workspace's own tsc through its yarn (Plug'n'Play)`);
    return;
  }
  if (findExecutable('tsc', scope.dir) === undefined) {
    found.note(scope, 'tsc: tsconfig.json found but no tsc is installed (node_modules/.bin or PATH): not checked');
    return;
  }
  const { command, references } = tscCommand(scope.dir);
  found.add(scope, { name: 'tsc', command, parser: 'tsc' }, {
    source: 'tsconfig.json (no typecheck script)',
    reason: references ? 'the workspace\'s own tsc in build mode: tsconfig.json references other projects (it writes their build output, as the project\'s own build does)' : 'the workspace\'s own tsc',
  });
  found.note(scope, references
    ? 'tsc: tsconfig.json has project references and there is no typecheck script; `tsc -b` checks every referenced project'
    : 'tsc: tsconfig.json found and no typecheck script; type check with the workspace\'s own tsc');
}

function lintChecks(found: Found, scope: Scope, scripts: Record<string, string>, pkg: PackageJson | undefined): void {
  // The project's `lint` script (which usually runs its `lint:*`), else each `lint:*`, else its ESLint config.
  let lintScripts = scripts.lint !== undefined ? ['lint'] : Object.keys(scripts).filter((n) => n.startsWith('lint:') && !WRITES.test(n.slice(5)));
  if (lintScripts.length === 0) {
    // A lint under another name (`check: gts check`, `eslint: eslint src`): found by what it runs.
    lintScripts = lintEntryPoints(scripts);
    for (const name of lintScripts) found.note(scope, `${name}: scripts.${name} ("${scripts[name]}") runs the linter (${resolveScript(scripts, name).filter((s) => s.hook !== true).map((s) => s.command).join(', ')}): the project's lint entry point, found by what it runs rather than by its name`);
  }
  for (const name of lintScripts) addScript(found, scope, scripts, name, 'the project\'s own lint');
  const has = (f: string): boolean => existsSync(path.join(scope.dir, f));
  const eslintConfig = [...ESLINT_FLAT, ...ESLINT_LEGACY].find(has) ?? (pkg?.eslintConfig !== undefined ? 'package.json#eslintConfig' : undefined);
  if (eslintConfig === undefined || !scope.infer) return;
  const delegated = delegatedRole(scope, 'lint');
  if (lintScripts.length > 0) {
    found.note(scope, `eslint: ${eslintConfig} found, but the project lints with its own script${lintScripts.length > 1 ? 's' : ''} (${lintScripts.join(', ')}): that is what runs`);
  } else if (delegated !== undefined) {
    found.note(scope, `eslint: ${eslintConfig} found, but ${delegated}: no root-wide eslint is added (it would lint what no package's own lint covers)`);
  } else if (scope.pnp !== undefined && declares(scope.dir, 'eslint')) {
    found.add(scope, { name: 'eslint', command: `${scope.pnp.yarn} run eslint --format json .`, parser: 'eslint' }, { source: `${eslintConfig} (no lint script)`, reason: `ESLint with \`--format json\`, resolved by the project's yarn (${scope.pnp.from}): Plug'n'Play, no node_modules` });
    found.note(scope, `eslint: ${eslintConfig} found and no lint script; lint with the workspace's own eslint through its yarn (Plug'n'Play), JSON report`);
  } else if (findExecutable('eslint', scope.dir) !== undefined) {
    found.add(scope, { name: 'eslint', command: 'eslint --format json .', parser: 'eslint' }, { source: `${eslintConfig} (no lint script)`, reason: 'ESLint with `--format json`' });
    found.note(scope, `eslint: ${eslintConfig} found and no lint script; lint with the workspace's own eslint, JSON report`);
  } else {
    found.note(scope, `eslint: ${eslintConfig} found but no eslint is installed: not checked`);
  }
}

/** Tools whose run is a lint: ESLint (and gts's lint and check, which run it), Biome's lint, oxlint. */
const LINTER = /^(?:\S*\/)?(?:eslint|oxlint)(?:\s|$)|^(?:\S*\/)?(?:gts\s+(?:lint|check)|biome\s+(?:lint|check|ci))(?:\s|$)/;

/**
 * Scripts that only lint (every step they run, hooks aside, is a linter), not named `lint`: those no
 * other such script runs as part of itself. Scripts that fix, format or run the tests are not.
 */
function lintEntryPoints(scripts: Record<string, string>): string[] {
  const skip = new Set([...TEST_SCRIPTS, ...TYPECHECK_SCRIPTS]);
  const lints = Object.keys(scripts).filter((n) => {
    if (skip.has(n) || WRITES.test(n) || /^(?:pre|post)/.test(n) || /--fix\b|--write\b/.test(scripts[n]!)) return false;
    const steps = resolveScript(scripts, n).filter((s) => s.hook !== true);
    return steps.length > 0 && steps.every((s) => LINTER.test(s.command));
  });
  return lints.filter((n) => !lints.some((m) => m !== n && resolveScript(scripts, m).some((s) => s.script === n)));
}

function testChecks(found: Found, scope: Scope, scripts: Record<string, string>): void {
  const testScript = TEST_SCRIPTS.find((n) => scripts[n] !== undefined);
  if (testScript === undefined) return;
  if (NPM_PLACEHOLDER.test(scripts[testScript]!)) found.note(scope, `test: ${scope.label}'s ${testScript} script is npm's "no test specified" placeholder: not a check`);
  else addScript(found, scope, scripts, testScript, 'the project\'s own tests');
}

/** A tool the project's scripts already run (a `build: tsc` in its test chain) is not run a second time by inference. */
function dropRepeats(found: Found, scope: Scope, scripts: Record<string, string>): void {
  const fromScript = (n: string): boolean => found.origins[n]?.source.startsWith(scope.label) === true;
  const mine = found.checks.filter((c) => c.name.startsWith(scope.prefix)).map((c) => c.name);
  const scripted = new Set(mine.filter(fromScript).flatMap((n) => resolveScript(scripts, n.slice(scope.prefix.length)).map((st) => st.parser)));
  for (const tool of ['tsc', 'eslint'] as const) {
    const name = scope.prefix + tool;
    const i = found.checks.findIndex((c) => c.name === name && !fromScript(name));
    if (i >= 0 && scripted.has(tool)) {
      found.checks.splice(i, 1);
      delete found.origins[name];
      found.note(scope, `${tool}: the project's scripts already run ${tool}: not run a second time`);
    }
  }
}

/**
 * A workspace root's scripts that run every package's script (`pnpm --color -r run test`, `turbo
 * run test`, `npm test -ws`): the packages' own checks stand in for that part, so each package's
 * tests run once. What the root's script runs of its own besides (`tsc && pnpm -r test`) stays a
 * check, run directly; the builds it runs first (a `pretest` build, `pnpm build &&`) do not, since
 * each package's own script runs its own `pre` scripts and builds where it needs them.
 */
function leaveFanOutsToPackages(found: Found, scope: Scope, scripts: Record<string, string>): void {
  // Each script is read as the project wrote it, whatever was left out before it.
  const written = { ...scripts };
  for (const name of Object.keys(written)) {
    if (/^(?:pre|post)/.test(name) && written[name.replace(/^(?:pre|post)/, '')] !== undefined) continue;
    const steps = resolveScript(written, name);
    // A fan-out in a `pre` script (`pretest: pnpm -r build`) is a build for the root's own run.
    const fans = steps.filter((s) => s.fanOut !== undefined && s.hook !== true);
    if (fans.length === 0) continue;
    const body = written[name]!;
    const own = steps.filter((s) => s.fanOut === undefined && s.hook !== true && !QUIET.test(s.command));
    const skipped = steps.filter((s) => !fans.includes(s) && !own.includes(s));
    const runs = fans.map((s) => `${s.fanOut!.manager} runs ${s.fanOut!.scripts.map((n) => `scripts.${n}`).join(', ')} in every package`).join('; ');
    const builds = skipped.length > 0 ? `; what it runs before them (${skipped.map((s) => (s.script !== undefined && s.script !== name ? `${s.script}: ${s.command}` : s.command)).join(' && ')}) is not run for them: each package's own script runs its own pre scripts and build where it needs one` : '';
    delete scripts[`pre${name}`];
    delete scripts[`post${name}`];
    (scope.fannedOut ??= new Map()).set(name, fans.flatMap((s) => s.fanOut!.scripts));
    if (own.length === 0) {
      delete scripts[name];
      found.note(scope, `${name}: scripts.${name} ("${body}") runs each package's own script (${runs}): the packages' checks stand in for it, each run once${builds}`);
      continue;
    }
    const direct = own.map((s) => s.command).join(' && ');
    scripts[name] = direct;
    scope.direct = { ...scope.direct, [name]: direct };
    found.note(scope, `${name}: scripts.${name} ("${body}") runs each package's own script (${runs}): the packages' checks stand in for that part; the root's own steps run directly (${direct})${builds}`);
  }
}

/** The checks of one folder: its scripts (root scripts that fan out to every package left to the packages). */
function discoverIn(found: Found, scope: Scope, fansOutTo?: Workspace): void {
  const pkg = readPackageJson(scope, found);
  const scripts = scriptsOf(pkg);
  const pnp = pnpRunner(scope.dir);
  if (pnp !== undefined && 'yarn' in pnp) scope.pnp = pnp;
  else if (pnp !== undefined && scope.prefix === '') found.note(scope, `yarn: ${pnp.missing}: its scripts run through npm and fail where they need a tool`);
  if (fansOutTo !== undefined) {
    scope.workspace = fansOutTo;
    leaveFanOutsToPackages(found, scope, scripts);
  }
  typecheckChecks(found, scope, scripts);
  lintChecks(found, scope, scripts, pkg);
  formatChecks(found, scope, scripts);
  testChecks(found, scope, scripts);
  fanOutTargets(found, scope, scripts);
  dropRepeats(found, scope, scripts);
}

/**
 * At a workspace root, why a kind of check (type check, lint) is the packages' and not the root's:
 * a root script fans out to a target of that kind (`typecheck: turbo typecheck`, `test:eslint: nx
 * affected --target=test:eslint`), or a package carries its own script of that kind; each read by
 * what it runs, not by its name. A root-wide tsc or eslint would then check what the project never
 * checks (examples, other packages' build output). Undefined elsewhere.
 */
function delegatedRole(scope: Scope, kind: CheckKind): string | undefined {
  if (scope.workspace === undefined) return undefined;
  const packages = scope.workspace.packages.map((p) => ({ name: p.name, scripts: scriptsOf(readJsonObjectIfPresent(path.join(p.dir, 'package.json'))) }));
  const targets = rootTargets(new Map(scope.fannedOut ?? []), [], packages.map((p) => p.scripts));
  // The root's own script for the kind (`lint: turbo lint`) fans out to it, whatever the packages run under that name.
  const role = (n: string): boolean => (kind === 'lint' ? n === 'lint' || (n.startsWith('lint:') && !WRITES.test(n.slice(5))) : TYPECHECK_SCRIPTS.includes(n));
  const named = [...(scope.fannedOut?.keys() ?? [])].find(role);
  if (named !== undefined) return `the root's scripts.${named} runs each package's own`;
  const target = targets.byKind.get(kind)?.[0];
  if (target !== undefined) {
    const by = [...(scope.fannedOut ?? [])].find(([, ts]) => ts.includes(target))![0];
    return `the root's scripts.${by} runs each package's own${target !== by ? ` (${target}: a ${KIND_WORDS[kind]})` : ''}`;
  }
  const own = packages.find((p) => Object.keys(p.scripts).some((n) => !/^(?:pre|post)/.test(n) && scriptKinds(p.scripts, n).has(kind)));
  return own !== undefined ? `package ${own.name} has its own (the packages check themselves)` : undefined;
}

/**
 * Every script that runs a checker in check mode (`check: biome check`, `format:check: prettier
 * --check .`, `lint:format`) is a check of its own, whatever its name, unless a check found already
 * runs that same step (`lint: run-s lint:*`): `lint` existing must not hide a format check CI runs.
 * Of scripts that run one another, the one that runs the step itself is the check.
 */
function formatChecks(found: Found, scope: Scope, scripts: Record<string, string>): void {
  const mine = found.checks.filter((c) => c.name.startsWith(scope.prefix)).map((c) => c.name.slice(scope.prefix.length));
  const covered = new Set(mine.filter((n) => scripts[n] !== undefined).flatMap((n) => resolveScript(scripts, n).map((s) => s.command)));
  const formatSteps = (n: string): string[] => formatCheckSteps(scripts, n);
  const candidates = Object.keys(scripts).filter((n) => {
    if (mine.includes(n) || /^(?:pre|post)/.test(n) || TEST_SCRIPTS.includes(n) || WRITES_FLAG.test(scripts[n]!)) return false;
    return formatSteps(n).some((c) => !covered.has(c));
  });
  const inner = candidates.filter((n) => !candidates.some((m) => m !== n && resolveScript(scripts, n).some((s) => s.script === m)));
  for (const name of inner) {
    found.note(scope, `${name}: scripts.${name} ("${scripts[name]}") runs a checker in check mode (${formatSteps(name).join(', ')}) that no other check runs: a check of its own, found by what it runs rather than by its name`);
    addScript(found, scope, scripts, name, 'the project\'s own format check');
  }
}

/** What the root's fan-outs run in every package; the check scripts' (test, typecheck, lint, and the scripts they run) targets are a package's checks. */
function rootFanOutTargets(workspace: Workspace): FanOutTargets {
  const scripts = scriptsOf(readJsonObjectIfPresent(path.join(workspace.root, 'package.json')));
  const fanned = new Map(Object.keys(scripts).map((n) => [n, resolveScript(scripts, n).flatMap((s) => (s.hook !== true ? s.fanOut?.scripts ?? [] : []))] as const));
  const roles = Object.keys(scripts).filter((n) => TEST_SCRIPTS.includes(n) || TYPECHECK_SCRIPTS.includes(n) || n === 'lint' || n.startsWith('lint:'));
  return rootTargets(fanned, roles, workspace.packages.map((p) => scriptsOf(readJsonObjectIfPresent(path.join(p.dir, 'package.json')))));
}

/**
 * A package's script the root's fan-out runs (`nx run-many --targets=test:lib`) is a check of the
 * package, whatever its name, unless one found already runs it.
 */
function fanOutTargets(found: Found, scope: Scope, scripts: Record<string, string>): void {
  for (const t of scope.targets?.names ?? []) {
    if (scripts[t] === undefined || NPM_PLACEHOLDER.test(scripts[t]!)) continue;
    const mine = found.checks.filter((c) => c.name.startsWith(scope.prefix)).map((c) => c.name.slice(scope.prefix.length));
    if (mine.some((n) => n === t || (scripts[n] !== undefined && resolveScript(scripts, n).some((s) => s.script === t)))) continue;
    addScript(found, scope, scripts, t, 'the script the workspace root\'s fan-out runs in each package');
  }
}

function packageScope(root: string, p: WorkspacePackage, workspace: Workspace): Scope {
  const cwd = path.relative(root, p.dir).split(path.sep).join('/');
  return { dir: p.dir, cwd, prefix: `${checkPrefix(p, workspace)}:`, label: `${cwd}/package.json`, pkg: p.name, infer: false };
}

export function discoverChecks(root: string): Discovery {
  const found = new Found();
  const self: Scope = { dir: path.resolve(root), prefix: '', label: 'package.json', infer: true };
  const workspace = workspaceAt(root);
  if (workspace !== undefined) {
    // A workspace root: its own scripts that are not a fan-out, then every package by its own scripts.
    discoverIn(found, self, workspace);
    found.notes.push(`workspace: ${workspace.packages.length} package(s) from ${workspace.source}; each is checked by its own scripts, in its own folder`);
    const targets = rootFanOutTargets(workspace);
    for (const p of workspace.packages) discoverIn(found, { ...packageScope(root, p, workspace), targets });
  } else {
    discoverIn(found, self);
    const enclosing = enclosingWorkspace(root);
    if (enclosing !== undefined) {
      // A package of a monorepo: a change here can break the packages that depend on it, so their checks run too.
      const dependents = dependentsOf(enclosing.workspace, enclosing.self);
      found.notes.push(`workspace: ${enclosing.self.name} is a package of the workspace at ${path.relative(root, enclosing.workspace.root) || '.'}; ${dependents.length > 0 ? `the packages that depend on it are checked too: ${dependents.map((d) => d.name).join(', ')}` : 'no other package depends on it'}`);
      for (const p of dependents) discoverIn(found, packageScope(root, p, enclosing.workspace));
    }
  }
  if (found.checks.length === 0) found.notes.push('nothing found to check: no typecheck, lint or test script, tsconfig.json or ESLint config; set fixUntilGreen.checks');
  const prerequisites = checkPrerequisites(self.dir, workspace ?? enclosingWorkspace(root)?.workspace, found.checks, found.tasks, (dir, script) => {
    const scripts = scriptsOf(readJsonObjectIfPresent(path.join(dir, 'package.json')));
    if (scripts[script] === undefined) return undefined;
    const pnp = pnpRunner(dir);
    const viaNpm = pnp !== undefined && 'yarn' in pnp ? `${pnp.yarn} run ${script}` : script === 'test' ? 'npm test --silent' : `npm run ${script} --silent`;
    const plan = planScript(scripts, script, dir, viaNpm);
    // As addScript: under Plug'n'Play a tool run directly is found only through yarn.
    return { command: pnp !== undefined && 'yarn' in pnp && plan.command !== viaNpm ? `${pnp.yarn} run ${plan.command}` : plan.command, parser: plan.parser };
  });
  for (const [check, lines] of Object.entries(prerequisites.perCheck)) {
    if (found.origins[check] !== undefined) found.origins[check] = { ...found.origins[check]!, dependsOn: lines };
    found.notes.push(`${check}: ${lines.join('; ')}`);
  }
  found.notes.push(...prerequisites.notes);
  return { checks: found.checks, notes: found.notes, origins: found.origins, prerequisites };
}

/**
 * Where each check comes from and which parser reads it: discovery's record (`known`) for discovered
 * checks; for configured ones, the setting (or flag) and the parser named or inferred.
 */
export function explainChecks(root: string, checks: readonly CheckSpec[], known: Readonly<Record<string, CheckOrigin>>, configuredFrom = 'fixUntilGreen.checks'): Record<string, CheckOrigin> {
  const out: Record<string, CheckOrigin> = {};
  for (const c of checks) {
    if (known[c.name] !== undefined) {
      out[c.name] = known[c.name]!;
      continue;
    }
    const cwd = path.resolve(root, c.cwd ?? '.');
    const parser = c.parser ?? parserForCommand(c.command, cwd);
    out[c.name] = {
      source: configuredFrom,
      parser,
      reason: c.parser !== undefined ? 'the parser the check names' : `inferred from the command${parser === 'generic' ? ': no parser names its tool, so the output is read by every parser that recognises it, else as one generic failure' : ''}`,
    };
  }
  return out;
}

/** The configured checks, or the discovered ones when none are configured. */
export function resolveChecks(root: string, configured: readonly CheckSpec[]): Discovery & { discovered: boolean } {
  if (configured.length > 0) return { checks: [...configured], notes: [], origins: {}, prerequisites: noPrerequisites(), discovered: false };
  return { ...discoverChecks(root), discovered: true };
}
