// Class L: a check's task that the project's task graph makes depend on another (turbo `dependsOn`,
// Nx `targetDefaults`) runs after it. Each project is small and real, in the system's temp folder,
// checked by the real tsc: a package whose tests import it through its built `dist/` is judged on
// its source only when its build runs first; a build that fails is reported as that build's failure.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { discoverChecks } from '../../../src/core/verify/discover';
import { planPrerequisites } from '../../../src/core/verify/taskGraph/prerequisites';
import type { GraphPackage, TaskGraph } from '../../../src/core/verify/taskGraph/taskGraph';
import { readTaskGraph } from '../../../src/core/verify/taskGraph/taskGraph';
import type { VerifyOptions } from '../../../src/core/verify/verifier';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, tempTree } from '../../support/fixtures';

const json = (v: unknown): string => JSON.stringify(v, null, 2);

/** A package whose types are its build output, with a type check that reads it through `..` or a sibling's name. */
function tsPackage(dir: string, name: string, scripts: Record<string, string>, source: string, extra: Record<string, unknown> = {}): Record<string, string> {
  return {
    [`${dir}/package.json`]: json({ name, version: '1.0.0', types: 'dist/index.d.ts', main: 'dist/index.js', scripts, ...extra }),
    [`${dir}/tsconfig.build.json`]: json({ compilerOptions: { strict: true, declaration: true, outDir: 'dist', rootDir: 'src', module: 'commonjs', target: 'es2020', skipLibCheck: true }, include: ['src'] }),
    [`${dir}/tsconfig.json`]: json({ compilerOptions: { strict: true, noEmit: true, module: 'commonjs', target: 'es2020', skipLibCheck: true }, include: ['src', 'test'] }),
    [`${dir}/src/index.ts`]: source,
  };
}

function project(files: Record<string, string>): { dir: string; cleanup(): void; write(rel: string, text: string): void; build(rel: string): void } {
  const t = tempTree(files, 'fug-taskgraph-');
  symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
  return {
    ...t,
    write: (rel, text) => writeFileSync(path.join(t.dir, rel), text),
    // The stale build a fresh clone's earlier `npm run build` left behind.
    build: (rel) => void execFileSync(path.join(REPO, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: path.join(t.dir, rel) }),
  };
}

/** A sibling resolved by name, as a workspace install links it. */
function link(root: string, from: string, name: string, to: string): void {
  mkdirSync(path.join(root, from, 'node_modules'), { recursive: true });
  symlinkSync(path.relative(path.join(root, from, 'node_modules'), path.join(root, to)), path.join(root, from, 'node_modules', name), 'dir');
}

function verifier(dir: string, parallel = false): Verifier {
  const d = discoverChecks(dir);
  return new Verifier({ root: dir, checks: d.checks, parallel, outputLimitKb: 256, flakyReruns: 0, prerequisites: d.prerequisites });
}

const verify = (dir: string, options?: VerifyOptions, parallel = false) => verifier(dir, parallel).verify(undefined, options);

const NUMBER = 'export function f(): number {\n  return 1;\n}\n';
const STRING = 'export function f(): string {\n  return "1";\n}\n';
const USE = 'import { f } from "..";\nexport const n: number = f();\n';

describe('task graph: a check runs after the tasks its project says it depends on (class L)', function () {
  this.timeout(300000);

  it('turbo 1 `pipeline`: `typecheck` dependsOn `build`, the test imports `..` (types in dist): a change in src only is judged, not the last build', async () => {
    const t = project({
      'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'], scripts: { typecheck: 'turbo typecheck' } }),
      'turbo.json': json({ pipeline: { build: {}, typecheck: { dependsOn: ['build'] } } }),
      ...tsPackage('packages/a', 'a', { build: 'tsc -p tsconfig.build.json', typecheck: 'tsc --noEmit' }, NUMBER),
      'packages/a/test/use.test.ts': USE,
    });
    try {
      t.build('packages/a');
      const d = discoverChecks(t.dir);
      assert.deepEqual(d.checks.map((c) => c.name), ['a:typecheck']);
      assert.deepEqual(d.origins['a:typecheck']?.dependsOn, ['runs `build` in packages/a first: turbo.json typecheck dependsOn build']);
      assert.ok(d.notes.some((n) => n.includes('a:typecheck: runs `build` in packages/a first')), d.notes.join('\n'));
      assert.equal((await verify(t.dir)).green, true);
      t.write('packages/a/src/index.ts', STRING);
      const v = await verify(t.dir);
      assert.equal(v.green, false, 'the test reads the new type of f once the build ran');
      assert.deepEqual(v.checks.map((c) => c.name), ['a:build', 'a:typecheck']);
      assert.ok(v.failures.some((f) => f.check === 'a:typecheck' && f.file === 'packages/a/test/use.test.ts' && f.id === 'TS2322'), JSON.stringify(v.failures));
    } finally {
      t.cleanup();
    }
  });

  it('turbo 2 `tasks` with `^build`: a sibling is built first, once for every check that needs it; a failing build is that build\'s failure and the checks after it do not run', async () => {
    const t = project({
      'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'], scripts: { test: 'turbo run typecheck test' } }),
      'turbo.json': json({ $schema: 'https://turbo.build/schema.json', tasks: { build: { dependsOn: ['^build'] }, typecheck: { dependsOn: ['^build'] }, test: { dependsOn: ['^build'] } } }),
      ...tsPackage('packages/a', 'a', { build: 'tsc -p tsconfig.build.json' }, NUMBER),
      // b has no build: skipped, as turbo skips it; c depends on b and a.
      'packages/b/package.json': json({ name: 'b', version: '1.0.0', dependencies: { a: '1.0.0' }, scripts: { typecheck: 'tsc --noEmit -p tsconfig.json', test: 'tsc --noEmit -p tsconfig.json' } }),
      'packages/b/tsconfig.json': json({ compilerOptions: { strict: true, noEmit: true, module: 'commonjs', target: 'es2020', skipLibCheck: true }, include: ['src'] }),
      'packages/b/src/use.ts': 'import { f } from "a";\nexport const n: number = f();\n',
    });
    try {
      link(t.dir, 'packages/b', 'a', 'packages/a');
      t.build('packages/a');
      const d = discoverChecks(t.dir);
      assert.deepEqual(d.checks.map((c) => c.name), ['b:typecheck', 'b:test']);
      assert.deepEqual(d.prerequisites.prerequisites.map((p) => [p.name, p.for]), [['a:build', ['b:typecheck', 'b:test']]]);
      t.write('packages/a/src/index.ts', STRING);
      // Checks side by side: the build still runs first, once.
      const v = await verify(t.dir, undefined, true);
      assert.deepEqual(v.checks.map((c) => c.name), ['a:build', 'b:typecheck', 'b:test'], 'a:build runs once for both checks');
      assert.equal(v.green, false);
      assert.ok(v.failures.some((f) => f.check === 'b:typecheck' && f.file === 'packages/b/src/use.ts' && f.id === 'TS2322'), JSON.stringify(v.failures));
      // A build that fails: placed in its own source; the checks that need it say why they did not run.
      t.write('packages/a/src/index.ts', 'export function f(): number {\n  return "x";\n}\n');
      const broken = await verify(t.dir);
      assert.equal(broken.green, false);
      assert.deepEqual(broken.failures.map((f) => [f.check, f.file, f.line, f.id]), [['a:build', 'packages/a/src/index.ts', 2, 'TS2322']]);
      const b = broken.checks.find((c) => c.name === 'b:typecheck')!;
      assert.match(b.notRun ?? '', /`build` in packages\/a \(a:build\), which it depends on, did not pass/);
    } finally {
      t.cleanup();
    }
  });

  it('Nx `targetDefaults` with `^build`, transitively, and a project\'s own `dependsOn` object form; in a step, an unchanged build is not run again, a changed one is', async () => {
    const t = project({
      'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'], scripts: { test: 'nx run-many --targets=test:types,test:other' } }),
      'nx.json': json({ targetDefaults: { build: { dependsOn: ['^build'], cache: true }, 'test:types': { dependsOn: ['^build'] } } }),
      ...tsPackage('packages/core', 'core', { build: 'tsc -p tsconfig.build.json' }, NUMBER),
      ...tsPackage('packages/mid', 'mid', { build: 'tsc -p tsconfig.build.json' }, 'export { f } from "core";\n', { dependencies: { core: '1.0.0' } }),
      'packages/app/package.json': json({ name: 'app', version: '1.0.0', dependencies: { mid: '1.0.0' }, scripts: { 'test:types': 'tsc --noEmit -p tsconfig.json', 'test:other': 'tsc --noEmit -p tsconfig.json' }, nx: { targets: { 'test:other': { dependsOn: [{ target: 'build', projects: 'dependencies' }] } } } }),
      'packages/app/tsconfig.json': json({ compilerOptions: { strict: true, noEmit: true, module: 'commonjs', target: 'es2020', skipLibCheck: true }, include: ['src'] }),
      'packages/app/src/use.ts': 'import { f } from "mid";\nexport const n: number = f();\n',
    });
    try {
      link(t.dir, 'packages/mid', 'core', 'packages/core');
      link(t.dir, 'packages/app', 'mid', 'packages/mid');
      t.build('packages/core');
      t.build('packages/mid');
      const d = discoverChecks(t.dir);
      assert.deepEqual(d.checks.map((c) => c.name), ['app:test:types', 'app:test:other']);
      assert.deepEqual(d.prerequisites.prerequisites.map((p) => [p.name, p.after, p.for]), [['core:build', [], ['app:test:types', 'app:test:other']], ['mid:build', ['core:build'], ['app:test:types', 'app:test:other']]]);
      assert.deepEqual(d.origins['app:test:types']?.dependsOn, ['runs `build` in packages/core first, before `build` in packages/mid: nx.json targetDefaults.build dependsOn ^build', 'runs `build` in packages/mid first: nx.json targetDefaults.test:types dependsOn ^build']);
      assert.match(d.origins['app:test:other']?.dependsOn?.[1] ?? '', /^runs `build` in packages\/mid first: packages\/app\/package\.json nx\.targets test:other dependsOn \{"target":"build","projects":"dependencies"\}$/);
      const w = verifier(t.dir);
      const first = await w.verify();
      assert.equal(first.green, true, JSON.stringify(first.failures));
      // A step that changed only app's own file: the builds passed earlier and their inputs did not change.
      t.write('packages/app/src/use.ts', 'import { f } from "mid";\nexport const n: number = f() + 1;\n');
      const step = await w.verify(undefined, { changed: ['packages/app/src/use.ts'] });
      assert.equal(step.green, true);
      assert.deepEqual(step.checks.filter((c) => c.name.endsWith(':build')).map((c) => [c.name, c.durationMs]), [['core:build', 0], ['mid:build', 0]]);
      // A step that changed core's source: core is rebuilt, and mid after it; the verdict follows the source.
      t.write('packages/core/src/index.ts', STRING);
      const changed = await w.verify(undefined, { changed: ['packages/core/src/index.ts'] });
      assert.ok(changed.checks.filter((c) => c.name.endsWith(':build')).every((c) => c.durationMs > 0 && c.stagedNote?.startsWith('run before') === true), JSON.stringify(changed.checks.map((c) => [c.name, c.stagedNote])));
      assert.equal(changed.green, false);
      assert.ok(changed.failures.some((f) => f.check === 'app:test:types' && f.file === 'packages/app/src/use.ts'), JSON.stringify(changed.failures));
      // A file of no package (a root config every build may read): every build runs again.
      t.write('tsconfig.base.json', '{}\n');
      const shared = await w.verify(undefined, { changed: ['tsconfig.base.json'] });
      assert.ok(shared.checks.filter((c) => c.name.endsWith(':build')).every((c) => c.durationMs > 0), JSON.stringify(shared.checks.map((c) => [c.name, c.stagedNote])));
    } finally {
      t.cleanup();
    }
  });
});

describe('task graph: what a task depends on, as turbo and Nx read their configuration', () => {
  const pkg = (root: string, rel: string, name: string, deps: string[] = []): GraphPackage => ({ name, dir: path.join(root, rel), deps });
  const edges = (g: TaskGraph | undefined, p: GraphPackage, task: string): string[] => (g?.dependsOn(p, task) ?? []).map((e) => `${e.pkg.name}#${e.task} (${e.why})`);

  it('turbo: `pkg#task` over a package turbo.json that extends the root\'s, over the root\'s task; `$ENV` is no task; the root\'s own tasks are `//#task`', () => {
    const t = tempTree({
      'turbo.json': '// turbo allows comments\n' + json({ tasks: { typecheck: { dependsOn: ['build'] }, 'b#typecheck': { dependsOn: ['^build', '$NODE_ENV'] }, '//#lint': { dependsOn: ['//#gen', 'a#build'] }, test: {} } }),
      'packages/c/turbo.json': json({ extends: ['//'], tasks: { typecheck: { dependsOn: ['codegen'] } } }),
      // Not extending the root's: turbo rejects it, so it does not apply.
      'packages/d/turbo.json': json({ tasks: { typecheck: { dependsOn: ['nothing'] } } }),
    }, 'fug-turbograph-');
    try {
      const a = pkg(t.dir, 'packages/a', 'a');
      const b = pkg(t.dir, 'packages/b', 'b', ['a']);
      const c = pkg(t.dir, 'packages/c', 'c', ['a']);
      const d = pkg(t.dir, 'packages/d', 'd');
      const root: GraphPackage = { name: '//', dir: t.dir, deps: [], root: true };
      const g = readTaskGraph(t.dir, [a, b, c, d], root);
      assert.deepEqual(g?.sources, ['turbo.json']);
      assert.deepEqual(edges(g, a, 'typecheck'), ['a#build (turbo.json typecheck dependsOn build)']);
      assert.deepEqual(edges(g, b, 'typecheck'), ['a#build (turbo.json b#typecheck dependsOn ^build)']);
      assert.deepEqual(edges(g, c, 'typecheck'), ['c#codegen (packages/c/turbo.json typecheck dependsOn codegen)']);
      assert.deepEqual(edges(g, d, 'typecheck'), ['d#build (turbo.json typecheck dependsOn build)']);
      assert.deepEqual(edges(g, a, 'test'), []);
      assert.deepEqual(edges(g, root, 'lint'), ['//#gen (turbo.json //#lint dependsOn //#gen)', 'a#build (turbo.json //#lint dependsOn a#build)']);
      assert.deepEqual(edges(g, root, 'typecheck'), [], 'a plain task key is not the root\'s');
    } finally {
      t.cleanup();
    }
  });

  it('Nx: a project\'s own target (project.json, package.json nx.targets) over targetDefaults (exact, then a glob); the object forms', () => {
    const t = tempTree({
      'nx.json': json({ targetDefaults: { build: { dependsOn: ['^build'] }, 'test:*': { dependsOn: ['build'] }, lint: { dependsOn: [{ target: 'build', dependencies: true }, { target: 'codegen', projects: 'self' }, { target: 'gen', projects: ['tools'] }] } } }),
      'packages/b/project.json': json({ name: 'b-project', targets: { build: { dependsOn: [{ target: 'prepare', projects: 'dependencies' }] } } }),
      'packages/c/package.json': json({ name: 'c', nx: { targets: { 'test:lib': { dependsOn: [] } } } }),
    }, 'fug-nxgraph-');
    try {
      const tools = pkg(t.dir, 'tools', 'tools');
      const a = pkg(t.dir, 'packages/a', 'a', ['b-project']);
      const b = pkg(t.dir, 'packages/b', 'b', ['tools']);
      const c = pkg(t.dir, 'packages/c', 'c', ['a']);
      const g = readTaskGraph(t.dir, [tools, a, b, c], { name: '//', dir: t.dir, deps: [], root: true });
      assert.deepEqual(edges(g, a, 'build'), ['b#build (nx.json targetDefaults.build dependsOn ^build)'], 'a project named in project.json is found by that name');
      assert.deepEqual(edges(g, b, 'build'), ['tools#prepare (packages/b/project.json build dependsOn {"target":"prepare","projects":"dependencies"})']);
      assert.deepEqual(edges(g, a, 'test:types'), ['a#build (nx.json targetDefaults.test:* dependsOn build)']);
      assert.deepEqual(edges(g, c, 'test:lib'), [], 'the project\'s own empty dependsOn wins');
      assert.deepEqual(edges(g, c, 'lint').map((e) => e.replace(/ \(.*/, '')), ['a#build', 'c#codegen', 'tools#gen']);
    } finally {
      t.cleanup();
    }
  });

  it('a task with no script is skipped and looked through to what it depends on; a cycle is cut and said; each task planned once, in order', () => {
    const t = tempTree({ 'turbo.json': json({ pipeline: { build: { dependsOn: ['^build'] }, typecheck: { dependsOn: ['^build'] }, lint: { dependsOn: ['typecheck'] } } }) }, 'fug-plan-');
    try {
      const c = pkg(t.dir, 'packages/c', 'c');
      const b = pkg(t.dir, 'packages/b', 'b', ['c']);
      const a = pkg(t.dir, 'packages/a', 'a', ['b', 'c']);
      const scripts: Record<string, string[]> = { a: ['typecheck', 'lint'], b: [], c: ['build'] };
      const g = readTaskGraph(t.dir, [a, b, c], { name: '//', dir: t.dir, deps: [], root: true })!;
      const plan = planPrerequisites({
        root: t.dir,
        graph: g,
        checks: [{ check: 'a:typecheck', pkg: a, task: 'typecheck' }, { check: 'a:lint', pkg: a, task: 'lint' }],
        packages: [a, b, c],
        commandFor: (p, task) => (scripts[p.name]!.includes(task) ? { command: `npm run ${task}`, parser: 'generic' } : undefined),
        taken: new Set(['a:typecheck', 'a:lint']),
      });
      // b has no build: c's build (b's build's own ^build) stands in; a:lint's typecheck is a check
      // already, run once as that check, and what it needs runs first for a:lint too.
      assert.deepEqual(plan.prerequisites.map((p) => [p.name, p.after, p.for]), [['c:build', [], ['a:typecheck', 'a:lint']]]);
      assert.ok(plan.notes.some((n) => n.includes('packages/b has no `build` script: skipped')), plan.notes.join('\n'));
      const cyclic = tempTree({ 'turbo.json': json({ tasks: { build: { dependsOn: ['typecheck'] }, typecheck: { dependsOn: ['build'] } } }) }, 'fug-plan-');
      try {
        const x = pkg(cyclic.dir, 'x', 'x');
        const p2 = planPrerequisites({ root: cyclic.dir, graph: readTaskGraph(cyclic.dir, [x], x)!, checks: [{ check: 'x:typecheck', pkg: x, task: 'typecheck' }], packages: [x], commandFor: (_p, task) => ({ command: task, parser: 'generic' }), taken: new Set() });
        assert.deepEqual(p2.prerequisites.map((p) => p.name), ['x:build']);
        assert.ok(p2.notes.some((n) => /depends on itself/.test(n)), p2.notes.join('\n'));
      } finally {
        cyclic.cleanup();
      }
    } finally {
      t.cleanup();
    }
  });
});
