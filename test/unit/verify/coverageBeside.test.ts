// A check whose only writing is a coverage report runs beside the others only when its report's
// folders are known and every other check provably reads apart from them (issue 39, class C): the
// folders as c8, nyc, Jest and Vitest find them, what Prettier, ESLint, tsc and tsd read, and the
// plan the verifier follows. Read from the files, no process started (coverageBesideLive runs them).
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckSpec } from '../../../src/core/types';
import { coverageFolders } from '../../../src/core/verify/coverageFolders';
import { mayReadFolders } from '../../../src/core/verify/coverageReaders';
import { exportedLiteral } from '../../../src/core/verify/jsLiteral';
import { planWriters, writesFiles } from '../../../src/core/verify/writers';
import { REPO, tempTree } from '../../support/fixtures';

type Tree = ReturnType<typeof tempTree>;

/** A project tree whose tools resolve to the repo's (Prettier 3, ESLint 9, Jest, c8). */
function project(files: Record<string, string>): Tree {
  const t = tempTree({ 'package.json': '{"name":"p","private":true}', ...files }, 'fug-cover-');
  symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
  return t;
}

const rel = (t: Tree, r: ReturnType<typeof coverageFolders>): unknown => (r !== undefined && 'folders' in r ? r.folders.map((f) => path.relative(t.dir, f)) : r);

describe('the folders a coverage tool writes, told with certainty or not at all', () => {
  const trees: Tree[] = [];
  const tree = (files: Record<string, string>): Tree => (trees.push(project(files)), trees[trees.length - 1]!);
  after(() => trees.forEach((t) => t.cleanup()));

  it('c8: coverage/ and its tmp/, moved by --reports-dir/-o/--temp-directory, a .c8rc.json or package.json c8', () => {
    const t = tree({});
    assert.deepEqual(rel(t, coverageFolders('c8 --100 node --test', t.dir)), ['coverage', 'coverage/tmp']);
    assert.deepEqual(rel(t, coverageFolders('c8 -o out/cov mocha', t.dir)), ['out/cov', 'out/cov/tmp']);
    assert.deepEqual(rel(t, coverageFolders('c8 --reports-dir=r --temp-directory .v8 node --test', t.dir)), ['r', '.v8']);
    assert.deepEqual(rel(t, coverageFolders('cross-env CI=1 c8 --reporter lcov mocha -o x', t.dir)), ['coverage', 'coverage/tmp'], "mocha's own -o is not c8's");
    const rc = tree({ '.c8rc.json': '{ "reports-dir": "reports/c8" }' });
    assert.deepEqual(rel(rc, coverageFolders('c8 node --test', rc.dir)), ['reports/c8', 'reports/c8/tmp']);
    const pkg = tree({ 'package.json': '{"c8":{"reportDir":"pc"}}' });
    assert.deepEqual(rel(pkg, coverageFolders('c8 node --test', pkg.dir)), ['pc', 'pc/tmp']);
    const ext = tree({ '.nycrc': '{ "extends": "@istanbuljs/nyc-config-typescript" }' });
    assert.match((coverageFolders('c8 node --test', ext.dir) as { unknown: string }).unknown, /extends another/);
  });

  it('nyc: coverage/, .nyc_output/ and its cache; a YAML or JS config is read only by running it', () => {
    const t = tree({});
    assert.deepEqual(rel(t, coverageFolders('nyc --reporter=lcov mocha', t.dir)), ['coverage', '.nyc_output', 'node_modules/.cache/nyc']);
    assert.deepEqual(rel(t, coverageFolders('nyc --report-dir rep --temp-dir tmp mocha', t.dir)), ['rep', 'tmp', 'node_modules/.cache/nyc']);
    const yml = tree({ '.nycrc.yml': 'report-dir: x\n' });
    assert.match((coverageFolders('nyc mocha', yml.dir) as { unknown: string }).unknown, /\.nycrc\.yml is read only by running it/);
  });

  it('Jest: --coverageDirectory, package.json jest, jest.config.json, a literal jest.config.js; a program or a preset: unknown', () => {
    const t = tree({});
    assert.deepEqual(rel(t, coverageFolders('jest --coverage', t.dir)), ['coverage']);
    assert.deepEqual(rel(t, coverageFolders('jest --coverage --coverageDirectory=out/jc', t.dir)), ['out/jc']);
    const pkg = tree({ 'package.json': '{"jest":{"rootDir":"sub","coverageDirectory":"<rootDir>/cov"}}', 'sub/.keep': '' });
    assert.deepEqual(rel(pkg, coverageFolders('jest --coverage', pkg.dir)), ['sub/cov']);
    const json = tree({ 'jest.config.json': '{"coverageDirectory":"jcov"}' });
    assert.deepEqual(rel(json, coverageFolders('jest --coverage', json.dir)), ['jcov']);
    // luxon's jest.config.js: a module that is nothing but a literal evaluates to exactly it.
    const lux = tree({ 'jest.config.js': 'module.exports = {\n  testEnvironment: "node",\n  roots: ["test"],\n  coverageDirectory: "build/coverage",\n  transform: { "^.+\\\\.js$": "babel-jest" },\n};\n' });
    assert.deepEqual(rel(lux, coverageFolders('jest --coverage', lux.dir)), ['build/coverage']);
    const computed = tree({ 'jest.config.js': 'const base = require("./base");\nmodule.exports = { ...base, testEnvironment: "node" };\n' });
    assert.match((coverageFolders('jest --coverage', computed.dir) as { unknown: string }).unknown, /jest\.config\.js is a program whose coverageDirectory is known only by running it/);
    const preset = tree({ 'package.json': '{"jest":{"preset":"ts-jest"}}' });
    assert.match((coverageFolders('jest --coverage', preset.dir) as { unknown: string }).unknown, /preset "ts-jest" may set coverageDirectory/);
  });

  it('Vitest: --coverage.reportsDirectory, default coverage/; a config that names reportsDirectory: unknown', () => {
    const t = tree({ 'vitest.config.ts': 'export default {}\n' });
    assert.deepEqual(rel(t, coverageFolders('vitest run --coverage', t.dir)), ['coverage']);
    assert.deepEqual(rel(t, coverageFolders('vitest run --coverage --coverage.reportsDirectory=vc', t.dir)), ['vc']);
    const named = tree({ 'vitest.config.ts': 'export default { test: { coverage: { reportsDirectory: dir() } } }\n' });
    assert.match((coverageFolders('vitest run --coverage', named.dir) as { unknown: string }).unknown, /vitest\.config\.ts may set where coverage goes/);
    assert.equal(coverageFolders('vitest run', t.dir), undefined);
  });

  it("coverage turned on by the runner's config writes its report too (Jest collectCoverage, Vitest coverage.enabled)", () => {
    const pkg = tree({ 'package.json': '{"jest":{"collectCoverage":true,"coverageDirectory":"jc"}}' });
    assert.deepEqual(rel(pkg, coverageFolders('jest', pkg.dir)), ['jc']);
    assert.equal(coverageFolders('jest --no-coverage', pkg.dir), undefined);
    assert.equal(coverageFolders('jest', tree({}).dir), undefined);
    const program = tree({ 'jest.config.js': 'module.exports = { collectCoverage: !!process.env.CI };\n' });
    assert.match((coverageFolders('jest', program.dir) as { unknown: string }).unknown, /may turn collectCoverage on/);
    const based = tree({ 'jest.config.js': 'module.exports = { ...require("./jest.base.js"), testEnvironment: "node" };\n' });
    assert.match((coverageFolders('jest', based.dir) as { unknown: string }).unknown, /may turn collectCoverage on/);
    assert.equal(coverageFolders('jest', tree({ 'jest.config.js': 'module.exports = { testEnvironment: process.env.E ?? "node" };\n' }).dir), undefined);
    const vite = tree({ 'vitest.config.ts': "export default { test: { coverage: { enabled: true } } };\n" });
    assert.deepEqual(rel(vite, coverageFolders('vitest run', vite.dir)), ['coverage']);
    const merged = tree({ 'vitest.config.ts': "import viteConfig from './vite.config';\nexport default mergeConfig(viteConfig, { test: { coverage: { enabled: true } } });\n" });
    assert.match((coverageFolders('vitest run', merged.dir) as { unknown: string }).unknown, /imports another module of the project/);
  });

  it('a step whose coverage tool is not read here is a writer of unknown folders, never a step that writes nothing', () => {
    const t = tree({ 'package.json': JSON.stringify({ scripts: { test: 'pnpm exec c8 node --test', cov: 'react-scripts test --coverage', j: 'jest' }, jest: { collectCoverage: true } }) });
    for (const [command, why] of [['npm test', /pnpm exec c8 node --test/], ['npm run cov', /react-scripts test --coverage/], ['npm run j', /^`jest` writes its coverage report$/]] as const) {
      const plan = planWriters([{ name: 'test', command, parser: 'generic' }, { name: 'lint', command: 'eslint src', parser: 'eslint' }], t.dir);
      assert.match(plan.notes[0] ?? '', /^check test: runs .*coverage report/, command);
      assert.match(writesFiles(command, t.dir) ?? '', why);
    }
  });

  it('a literal module is read; anything a program decides is not', () => {
    assert.deepEqual(exportedLiteral("'use strict';\n/** @type {import('jest').Config} */\nconst config = { a: 'x', b: [1, -2.5, true, null], 'c-d': { e: \"f\" }, };\nmodule.exports = config;\n"), { a: 'x', b: [1, -2.5, true, null], 'c-d': { e: 'f' } });
    assert.deepEqual(exportedLiteral('export default { coverageDirectory: "c" }'), { coverageDirectory: 'c' });
    for (const program of ['module.exports = { dir: path.join("a") }', 'module.exports = { ...base }', 'module.exports = { [k]: 1 }', 'module.exports = async () => ({})', 'module.exports = {}; module.exports.x = 1', 'module.exports = { a: `t` }']) assert.equal(exportedLiteral(program), undefined, program);
  });
});

describe('what another check reads, proven apart from the report or not', () => {
  const trees: Tree[] = [];
  after(() => trees.forEach((t) => t.cleanup()));
  const t = project({});
  trees.push(t);
  const cov = [path.join(t.dir, 'coverage')];
  const build = [path.join(t.dir, 'build/coverage')];

  it('globs read under their fixed prefix; `.`, no paths or a leading ** read the report', () => {
    assert.equal(mayReadFolders("prettier --check 'src/**/*.js' 'test/**/*.js' 'benchmarks/*.js'", t.dir, build), undefined);
    assert.match(mayReadFolders("prettier --check '**/*.js'", t.dir, build) ?? '', /prettier reads `\*\*\/\*\.js`, which holds build\/coverage/);
    assert.match(mayReadFolders("prettier --check 'build/**/*.js'", t.dir, build) ?? '', /holds build\/coverage/);
    assert.equal(mayReadFolders('eslint src test --format json', t.dir, cov), undefined);
    assert.match(mayReadFolders('eslint --format json', t.dir, cov) ?? '', /eslint lints the whole folder \(no paths given\), and its own ignores are known only by running its config/);
    assert.match(mayReadFolders('eslint .', t.dir, cov) ?? '', /eslint lints \./);
    assert.equal(mayReadFolders('node --test test/', t.dir, cov), undefined);
    assert.equal(mayReadFolders('mocha', t.dir, cov), undefined, 'mocha with no paths and no config reads ./test');
    const spec = project({ '.mocharc.json': '{ "spec": ["coverage/**/*.spec.js"] }' });
    const yml = project({ '.mocharc.yml': 'spec: test' });
    trees.push(spec, yml);
    assert.match(mayReadFolders('mocha test/', spec.dir, [path.join(spec.dir, 'coverage')]) ?? '', /mocha reads `coverage\/\*\*\/\*\.spec\.js`/);
    assert.match(mayReadFolders('mocha test/', yml.dir, [path.join(yml.dir, 'coverage')]) ?? '', /mocha's config \(\.mocharc\.yml\) may name more test files/);
    assert.match(mayReadFolders('node --test', t.dir, cov) ?? '', /no paths/);
    assert.match(mayReadFolders('jest', t.dir, cov) ?? '', /may read any file/);
    assert.match(mayReadFolders('node scripts/check.js', t.dir, cov) ?? '', /may read any file/);
  });

  it("Prettier 3 reads .gitignore and .prettierignore itself: a literal line there proves `.` apart; a negation or --ignore-path does not", () => {
    const ignored = project({ '.gitignore': 'node_modules\n/build\n' });
    const negated = project({ '.prettierignore': 'coverage/\n!coverage/keep.js\n' });
    trees.push(ignored, negated);
    assert.equal(mayReadFolders('prettier --check .', ignored.dir, [path.join(ignored.dir, 'build/coverage')]), undefined);
    assert.match(mayReadFolders('prettier --check . --ignore-path .eslintignore', ignored.dir, [path.join(ignored.dir, 'build/coverage')]) ?? '', /holds build\/coverage/);
    assert.match(mayReadFolders('prettier --check .', negated.dir, [path.join(negated.dir, 'coverage')]) ?? '', /holds coverage/);
    assert.match(mayReadFolders('prettier --check .', t.dir, cov) ?? '', /holds coverage/);
  });

  it('Biome with the VCS ignore file on skips what .gitignore excludes; without it, `.` or no paths read the report', () => {
    const vcs = project({ 'biome.json': '{ "vcs": { "enabled": true, "clientKind": "git", "useIgnoreFile": true } }', '.gitignore': 'coverage/\n' });
    const off = project({ 'biome.json': '{ "vcs": { "enabled": false } }', '.gitignore': 'coverage/\n' });
    trees.push(vcs, off);
    assert.equal(mayReadFolders('biome check', vcs.dir, [path.join(vcs.dir, 'coverage')]), undefined);
    assert.equal(mayReadFolders('biome ci .', vcs.dir, [path.join(vcs.dir, 'coverage')]), undefined);
    assert.match(mayReadFolders('biome check --vcs-use-ignore-file=false', vcs.dir, [path.join(vcs.dir, 'coverage')]) ?? '', /biome reads `\.`, which holds coverage/);
    assert.match(mayReadFolders('biome check', off.dir, [path.join(off.dir, 'coverage')]) ?? '', /biome reads `\.`, which holds coverage/);
    assert.equal(mayReadFolders('biome lint src', off.dir, [path.join(off.dir, 'coverage')]), undefined);
  });

  it('tsc: a report holds no .ts file, so with allowJs provably off it reads none; with allowJs, by its include', () => {
    const plain = project({ 'tsconfig.json': '{ "compilerOptions": { "strict": true } }' });
    const js = project({ 'tsconfig.json': '{ "compilerOptions": { "allowJs": true } }', 'src.json': '' });
    const jsSrc = project({ 'tsconfig.json': '{ "compilerOptions": { "allowJs": true }, "include": ["src"] }' });
    const extended = project({ 'tsconfig.json': '{ "extends": "./base.json" }', 'base.json': '{ "compilerOptions": { "allowJs": true } }' });
    trees.push(plain, js, jsSrc, extended);
    assert.equal(mayReadFolders('tsc --noEmit', plain.dir, [path.join(plain.dir, 'coverage')]), undefined);
    const json = project({ 'tsconfig.json': '{ "compilerOptions": { "resolveJsonModule": true }, "include": ["src", "coverage/*.json"] }' });
    trees.push(json);
    assert.match(mayReadFolders('tsc --noEmit', json.dir, [path.join(json.dir, 'coverage')]) ?? '', /tsc reads `coverage\/\*\.json`/);
    assert.match(mayReadFolders('tsc --noEmit', js.dir, [path.join(js.dir, 'coverage')]) ?? '', /may take \.js files \(allowJs\) from any folder/);
    assert.equal(mayReadFolders('tsc --noEmit', jsSrc.dir, [path.join(jsSrc.dir, 'coverage')]), undefined);
    assert.match(mayReadFolders('tsc --noEmit', extended.dir, [path.join(extended.dir, 'coverage')]) ?? '', /allowJs/);
  });

  it('a chain reads what any of its steps reads', () => {
    const chain = project({ 'package.json': JSON.stringify({ scripts: { lint: 'eslint src && prettier --check .' } }) });
    trees.push(chain);
    assert.match(mayReadFolders('npm run lint', chain.dir, [path.join(chain.dir, 'coverage')]) ?? '', /prettier reads `\.`/);
  });
});

describe('the plan: a coverage check beside the others only when proven unread', () => {
  const spec = (name: string, command: string): CheckSpec => ({ name, command, parser: 'generic' });
  let t: Tree;
  beforeEach(() => (t = project({ 'package.json': JSON.stringify({ scripts: { test: 'c8 -o out/cov node --test test/', 'test:in': 'c8 -o src/cov node --test test/', build: 'tsc', cov: 'npm run build && c8 node --test test/' } }), 'tsconfig.json': '{}' })));
  afterEach(() => t.cleanup());

  it('--reports-dir outside the linted path: beside; inside it: alone, and the note says which check reads it', () => {
    const out = planWriters([spec('test', 'npm test'), spec('lint', 'eslint src')], t.dir);
    assert.deepEqual([...out.alone], []);
    assert.deepEqual(out.notes, ['check test: runs beside the others: its only writing is its coverage report (out/cov, out/cov/tmp), which no other check reads']);
    const inside = planWriters([spec('test', 'npm run test:in'), spec('lint', 'eslint src')], t.dir);
    assert.deepEqual([...inside.alone], [0]);
    assert.match(inside.notes[0]!, /^check test: runs before the others, not beside them: `c8 -o src\/cov node --test test\/` writes its coverage report \(src\/cov, src\/cov\/tmp\), and check lint may read it as it is written: eslint lints src/);
  });

  it('a chain with another writer stays alone whatever its report; two reports into one folder: alone', () => {
    const chain = planWriters([spec('test', 'npm run cov'), spec('lint', 'eslint src')], t.dir);
    assert.deepEqual([...chain.alone], [0]);
    assert.match(chain.notes[0]!, /`tsc` \(scripts\.build\) writes its build output$/);
    const both = planWriters([spec('a', 'c8 node --test test/a'), spec('b', 'c8 node --test test/b')], t.dir);
    assert.deepEqual([...both.alone].sort(), [0, 1]);
    assert.match(both.notes[0]!, /check b writes its coverage into .*coverage too/);
  });

  it('a Jest config that cannot be read statically: alone, saying so', () => {
    const j = project({ 'jest.config.js': 'module.exports = require("./shared.js");\n' });
    try {
      const plan = planWriters([spec('test', 'jest --coverage'), spec('fmt', "prettier --check 'src/**'")], j.dir);
      assert.deepEqual([...plan.alone], [0]);
      assert.match(plan.notes[0]!, /writes its coverage report, and jest\.config\.js is a program whose coverageDirectory is known only by running it/);
    } finally {
      j.cleanup();
    }
  });
});
