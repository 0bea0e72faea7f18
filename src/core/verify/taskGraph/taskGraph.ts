// The project's own task graph, as its task runner declares it: which tasks a task depends on
// (`dependsOn`), read from turbo.json (turbo 1 `pipeline`, turbo 2 `tasks`, `pkg#task` keys, a
// package's own turbo.json that `extends` the root's) and from Nx (nx.json `targetDefaults`, a
// project's project.json or package.json `nx.targets`). Only the configuration is read: neither turbo
// nor nx needs to be installed. `^task` is the task in each of the package's workspace dependencies,
// `task` the package's own, `pkg#task` (turbo) or `{target, projects}` (Nx) a named package's.
//
// What a check then runs first, and when, is ./prerequisites.ts; this file only answers "what does
// task T of package P depend on, and which file says so".
import * as path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import picomatch from 'picomatch';
import { readTextIfPresent } from '../../fileText';

/** A package as the graph sees it: its name, folder and the workspace packages it depends on. */
export interface GraphPackage {
  name: string;
  /** Absolute folder. */
  dir: string;
  /** Names of the workspace packages it depends on. */
  deps: readonly string[];
  /** The workspace root itself (turbo's `//`), not one of its packages. */
  root?: boolean;
}

/** One task a task depends on, and which configuration says so (`turbo.json typecheck dependsOn build`). */
export interface TaskEdge {
  pkg: GraphPackage;
  task: string;
  why: string;
}

export interface TaskGraph {
  /** The configuration files read, for notes (`turbo.json`, `nx.json`). */
  sources: string[];
  /** The tasks `task` of `pkg` depends on, in the order declared; none when nothing is declared. */
  dependsOn(pkg: GraphPackage, task: string): TaskEdge[];
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON (or JSONC: turbo.json allows comments) object file, or undefined when absent or not an object. */
function readConfig(file: string): Json | undefined {
  const text = readTextIfPresent(file, ['ENOTDIR', 'EISDIR']);
  if (text === undefined) return undefined;
  const v: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  return isObject(v) ? v : undefined;
}

/** The `dependsOn` of a task entry: undefined when the entry does not say (so a default applies). */
function dependsOnOf(entry: unknown): unknown[] | undefined {
  return isObject(entry) && Array.isArray(entry.dependsOn) ? entry.dependsOn : undefined;
}

/** turbo 2 names the task table `tasks`, turbo 1 `pipeline`. */
function turboTasks(config: Json | undefined): Json | undefined {
  if (config === undefined) return undefined;
  const t = isObject(config.tasks) ? config.tasks : isObject(config.pipeline) ? config.pipeline : undefined;
  return t;
}

function relName(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

/**
 * Turbo's rules for a task's `dependsOn`, most specific first: the root turbo.json's `pkg#task`, the
 * package's own turbo.json (which `extends` the root's and overrides a task's `dependsOn` when it sets
 * one), then the root's plain `task`. The workspace root's own tasks are only `//#task`.
 */
function turboGraph(root: string, byName: ReadonlyMap<string, GraphPackage>, rootPkg: GraphPackage): TaskGraph | undefined {
  const file = path.join(root, 'turbo.json');
  const tasks = turboTasks(readConfig(file));
  if (tasks === undefined) return undefined;
  const ownConfigs = new Map<string, Json | undefined>();
  const own = (pkg: GraphPackage): Json | undefined => {
    if (pkg.root) return undefined;
    if (!ownConfigs.has(pkg.dir)) {
      const c = readConfig(path.join(pkg.dir, 'turbo.json'));
      // Only a package config that extends the root's applies to it (turbo refuses any other).
      const extendsRoot = c !== undefined && Array.isArray(c.extends) && c.extends.includes('//');
      ownConfigs.set(pkg.dir, extendsRoot ? turboTasks(c) : undefined);
    }
    return ownConfigs.get(pkg.dir);
  };
  const declared = (pkg: GraphPackage, task: string): { deps: unknown[]; where: string } | undefined => {
    const key = `${pkg.root ? '//' : pkg.name}#${task}`;
    const specific = dependsOnOf(tasks[key]);
    if (specific !== undefined) return { deps: specific, where: `turbo.json ${key}` };
    if (pkg.root) return undefined;
    const pkgOwn = dependsOnOf(own(pkg)?.[task]);
    if (pkgOwn !== undefined) return { deps: pkgOwn, where: `${relName(root, path.join(pkg.dir, 'turbo.json'))} ${task}` };
    const plain = dependsOnOf(tasks[task]);
    return plain !== undefined ? { deps: plain, where: `turbo.json ${task}` } : undefined;
  };
  return {
    sources: ['turbo.json'],
    dependsOn(pkg, task) {
      const d = declared(pkg, task);
      if (d === undefined) return [];
      const out: TaskEdge[] = [];
      for (const entry of d.deps) {
        // `$VAR` entries are turbo 1's environment inputs, not tasks.
        if (typeof entry !== 'string' || entry === '' || entry.startsWith('$')) continue;
        const why = `${d.where} dependsOn ${entry}`;
        if (entry.startsWith('^')) {
          for (const dep of pkg.deps) {
            const p = byName.get(dep);
            if (p !== undefined) out.push({ pkg: p, task: entry.slice(1), why });
          }
        } else if (entry.includes('#')) {
          const [name, t] = [entry.slice(0, entry.lastIndexOf('#')), entry.slice(entry.lastIndexOf('#') + 1)];
          const p = name === '//' ? rootPkg : byName.get(name);
          if (p !== undefined && t !== '') out.push({ pkg: p, task: t, why });
        } else {
          out.push({ pkg, task: entry, why });
        }
      }
      return out;
    },
  };
}

/** An Nx project's own target table: project.json `targets`, else package.json `nx.targets`. */
function nxProjectTargets(pkg: GraphPackage): { targets: Json; where: string; name?: string } | undefined {
  const project = readConfig(path.join(pkg.dir, 'project.json'));
  if (project !== undefined && isObject(project.targets)) return { targets: project.targets, where: 'project.json', ...(typeof project.name === 'string' ? { name: project.name } : {}) };
  const manifest = readConfig(path.join(pkg.dir, 'package.json'));
  const nx = manifest?.nx;
  if (isObject(nx) && isObject(nx.targets)) return { targets: nx.targets, where: 'package.json nx.targets' };
  return undefined;
}

/**
 * Nx's rules: a project's own target (project.json or package.json `nx.targets`) sets `dependsOn`
 * over nx.json's `targetDefaults` (keyed by target name, or a glob of names). Entries are `target`
 * (the project's own), `^target` (each dependency's) or `{target, projects: 'self' | 'dependencies' |
 * names, dependencies: true}`.
 */
function nxGraph(root: string, packages: readonly GraphPackage[]): TaskGraph | undefined {
  const config = readConfig(path.join(root, 'nx.json'));
  if (config === undefined) return undefined;
  const defaults = isObject(config.targetDefaults) ? config.targetDefaults : {};
  const byProject = new Map<string, GraphPackage>();
  for (const p of packages) {
    byProject.set(p.name, p);
    const n = nxProjectTargets(p)?.name;
    if (n !== undefined) byProject.set(n, p);
  }
  const fromDefaults = (task: string): { deps: unknown[]; where: string } | undefined => {
    const exact = dependsOnOf(defaults[task]);
    if (exact !== undefined) return { deps: exact, where: `nx.json targetDefaults.${task}` };
    for (const key of Object.keys(defaults)) {
      if (!/[*?{[]/.test(key) || !picomatch.isMatch(task, key)) continue;
      const d = dependsOnOf(defaults[key]);
      if (d !== undefined) return { deps: d, where: `nx.json targetDefaults.${key}` };
    }
    return undefined;
  };
  const declared = (pkg: GraphPackage, task: string): { deps: unknown[]; where: string } | undefined => {
    const own = nxProjectTargets(pkg);
    const d = dependsOnOf(own?.targets[task]);
    if (d !== undefined) return { deps: d, where: `${relName(root, pkg.dir) || '.'}/${own!.where} ${task}` };
    return fromDefaults(task);
  };
  const dependencies = (pkg: GraphPackage): GraphPackage[] => pkg.deps.map((n) => byProject.get(n)).filter((p): p is GraphPackage => p !== undefined);
  return {
    sources: ['nx.json'],
    dependsOn(pkg, task) {
      const d = declared(pkg, task);
      if (d === undefined) return [];
      const out: TaskEdge[] = [];
      for (const entry of d.deps) {
        if (typeof entry === 'string' && entry !== '') {
          const why = `${d.where} dependsOn ${entry}`;
          if (entry.startsWith('^')) for (const p of dependencies(pkg)) out.push({ pkg: p, task: entry.slice(1), why });
          else out.push({ pkg, task: entry, why });
          continue;
        }
        if (!isObject(entry) || typeof entry.target !== 'string' || entry.target === '') continue;
        const target = entry.target;
        const projects = entry.projects;
        const why = `${d.where} dependsOn ${JSON.stringify(entry)}`;
        if (entry.dependencies === true || projects === 'dependencies') for (const p of dependencies(pkg)) out.push({ pkg: p, task: target, why });
        else if (Array.isArray(projects)) for (const n of projects) {
          const p = typeof n === 'string' ? byProject.get(n) : undefined;
          if (p !== undefined) out.push({ pkg: p, task: target, why });
        }
        else if (typeof projects === 'string' && projects !== 'self') {
          const p = byProject.get(projects);
          if (p !== undefined) out.push({ pkg: p, task: target, why });
        } else out.push({ pkg, task: target, why });
      }
      return out;
    },
  };
}

/**
 * The task graph of the workspace at `root` (its turbo.json and nx.json, both when both exist), or
 * undefined when it declares none. `packages` are the workspace's packages; `rootPkg` the root's own.
 */
export function readTaskGraph(root: string, packages: readonly GraphPackage[], rootPkg: GraphPackage): TaskGraph | undefined {
  const byName = new Map(packages.map((p) => [p.name, p]));
  const graphs = [turboGraph(root, byName, rootPkg), nxGraph(root, packages)].filter((g): g is TaskGraph => g !== undefined);
  if (graphs.length === 0) return undefined;
  return {
    sources: graphs.flatMap((g) => g.sources),
    dependsOn: (pkg, task) => graphs.flatMap((g) => g.dependsOn(pkg, task)),
  };
}
