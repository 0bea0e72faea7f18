// The bridge from discovery to the task graph: the workspace's packages as graph nodes, each
// discovered check as the task (script) it runs in its package, and the plan of what runs first.
import * as path from 'node:path';
import { readTextIfPresent } from '../../fileText';
import type { CheckSpec, ParserId } from '../../types';
import type { Workspace } from '../workspaces';
import type { CheckTask, PrerequisitePlan } from './prerequisites';
import { planPrerequisites } from './prerequisites';
import type { GraphPackage } from './taskGraph';
import { readTaskGraph } from './taskGraph';

export function noPrerequisites(): PrerequisitePlan {
  return { prerequisites: [], perCheck: {}, notes: [], packageDirs: [] };
}

function packageName(dir: string): string {
  const text = readTextIfPresent(path.join(dir, 'package.json'), ['ENOTDIR', 'EISDIR']);
  try {
    const v = text !== undefined ? (JSON.parse(text) as { name?: unknown }) : undefined;
    return typeof v?.name === 'string' && v.name !== '' ? v.name : path.basename(dir);
  } catch (e) {
    if (e instanceof SyntaxError) return path.basename(dir);
    throw e;
  }
}

/**
 * What the discovered checks run first: `root` is the run's folder, `workspace` the workspace it is
 * (or is a package of), `tasks` the script each check runs in which folder; `commandFor` runs a
 * package's script as discovery runs one (undefined when the package has no such script).
 */
export function checkPrerequisites(
  root: string,
  workspace: Workspace | undefined,
  checks: readonly CheckSpec[],
  tasks: readonly { check: string; dir: string; task: string }[],
  commandFor: (dir: string, script: string) => { command: string; parser: ParserId } | undefined,
): PrerequisitePlan {
  // A single package is its own graph's one package (turbo's single-package mode: plain task keys apply to it).
  const graphRoot = workspace?.root ?? path.resolve(root);
  const packages: GraphPackage[] = workspace !== undefined ? workspace.packages.map((p) => ({ name: p.name, dir: p.dir, deps: p.deps })) : [{ name: packageName(graphRoot), dir: graphRoot, deps: [] }];
  const rootPkg: GraphPackage = workspace !== undefined ? { name: '//', dir: graphRoot, deps: [], root: true } : packages[0]!;
  const graph = readTaskGraph(graphRoot, packages, rootPkg);
  if (graph === undefined) return noPrerequisites();
  const byDir = new Map([...packages, rootPkg].map((p) => [p.dir, p]));
  const checkTasks: CheckTask[] = tasks.flatMap((t) => {
    const pkg = byDir.get(path.resolve(t.dir));
    return pkg !== undefined ? [{ check: t.check, pkg, task: t.task }] : [];
  });
  return planPrerequisites({
    root: path.resolve(root),
    graph,
    checks: checkTasks,
    packages,
    commandFor: (pkg, task) => commandFor(pkg.dir, task),
    taken: new Set(checks.map((c) => c.name)),
  });
}
