// Finding a workspace's checks when none are configured.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CheckSpec, Failure } from '../../../src/core/types';
import { discoverChecks, explainChecks, resolveChecks } from '../../../src/core/verify/discover';
import { avaTapCommand, biomeGithubCommand, eslintJsonCommand, oxlintGithubCommand, tscDirectCommand } from '../../../src/core/verify/scriptPlan';
import { expandScript, inferParser, parserForCommand, parserForScript, resolveScript, unwrapCommand } from '../../../src/core/verify/infer';
import { findExecutable } from '../../../src/core/verify/executable';
import { Verifier } from '../../../src/core/verify/verifier';
import { dependentsOf, workspaceAt } from '../../../src/core/verify/workspaces';
import { REPO, copyFixture } from '../../support/fixtures';

describe('check discovery', function () {
  this.timeout(120000);
  let dir: string;
  const write = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-discover-'));
    symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('tsconfig.json, an ESLint config and scripts.test give tsc, eslint (JSON) and the test script', () => {
    write('tsconfig.json', '{}');
    write('eslint.config.mjs', 'export default [];');
    write('package.json', JSON.stringify({ scripts: { test: 'vitest run' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks, [
      { name: 'tsc', command: 'tsc --noEmit -p tsconfig.json', parser: 'tsc' },
      { name: 'eslint', command: 'eslint --format json .', parser: 'eslint' },
      { name: 'test', command: 'npm test --silent', parser: 'vitest' },
    ]);
    assert.equal(d.notes.length, 3);
  });

  it('finds legacy ESLint configs and package.json#eslintConfig too', () => {
    write('.eslintrc.json', '{}');
    assert.equal(discoverChecks(dir).checks[0]!.name, 'eslint');
    rmSync(path.join(dir, '.eslintrc.json'));
    write('package.json', JSON.stringify({ eslintConfig: { rules: {} } }));
    assert.match(discoverChecks(dir).notes[0]!, /package\.json#eslintConfig/);
  });

  it('infers the test parser from the runner the script calls, through script references', () => {
    const scripts = {
      test: 'npm run build && npm run test:unit',
      build: 'tsc -p .',
      'test:unit': 'cross-env NODE_ENV=test mocha "test/**/*.js"',
    };
    assert.match(expandScript(scripts, 'test'), /mocha/);
    assert.equal(parserForScript(scripts, 'test'), 'mocha');
    for (const [script, parser] of [
      ['jest --ci', 'jest'],
      ['vitest', 'vitest'],
      ['node --test', 'node-test'],
      ['node --import tsx --test test/*.test.ts', 'node-test'],
      ['tsx --test', 'node-test'],
      ['tap test/*.js', 'tap'],
      ['tape test/*.js', 'tap'],
      ['tsc --noEmit && mocha', 'mocha'],
      ['./run-tests.sh', 'generic'],
    ] as const) {
      assert.equal(parserForScript({ test: script }, 'test'), parser, script);
    }
    assert.equal(inferParser('tsc --noEmit -p .'), 'tsc');
    write('package.json', JSON.stringify({ scripts: { test: 'jest', lint: 'eslint .', check: 'yarn lint' } }));
    assert.equal(parserForCommand('npm test', dir), 'jest', 'a configured `npm test` is read by what the script runs');
    assert.equal(parserForCommand('yarn check', dir), 'eslint');
    assert.equal(parserForCommand('make test', dir), 'generic');
    assert.equal(inferParser('eslint --format json .'), 'eslint');
  });

  it('leaves out npm\'s placeholder test script, and says why nothing was found', () => {
    write('package.json', JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks, []);
    assert.match(d.notes.join('\n'), /placeholder/);
    assert.match(d.notes.join('\n'), /nothing found to check/);
  });

  it('a broken package.json is a note, not a crash', () => {
    write('package.json', '{ "scripts": ');
    write('tsconfig.json', '{}');
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks.map((c) => c.name), ['tsc']);
    assert.match(d.notes.join('\n'), /package\.json is not valid JSON/);
  });

  it('a package.json whose scripts is no object has no scripts (an array is not scripts named 0, 1…)', () => {
    write('package.json', JSON.stringify({ scripts: ['prettier --check .'] }));
    write('tsconfig.json', '{}');
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks.map((c) => c.name), ['tsc']);
  });

  it('configured checks win; discovery only when none are configured', () => {
    write('tsconfig.json', '{}');
    const configured = [{ name: 'mine', command: 'node -e 0' }];
    assert.deepEqual(resolveChecks(dir, configured), { checks: configured, notes: [], origins: {}, prerequisites: { prerequisites: [], perCheck: {}, notes: [], packageDirs: [] }, discovered: false });
    const r = resolveChecks(dir, []);
    assert.equal(r.discovered, true);
    assert.deepEqual(r.checks.map((c) => c.name), ['tsc']);
  });

  it('discovered checks run: the jest fixture\'s test script through npm, read by the jest parser', async () => {
    const s = copyFixture('verify/jest');
    try {
      const { checks } = discoverChecks(s.project);
      assert.deepEqual(checks, [{ name: 'test', command: 'npm test --silent', parser: 'jest' }]);
      const v = new Verifier({ root: s.project, checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 });
      assert.deepEqual(v.preflight(), []);
      const r = await v.verify();
      assert.equal(r.failures.length, 5);
      assert.ok(r.failures.every((f) => f.check === 'test' && f.file !== undefined));
    } finally {
      s.cleanup();
    }
  });

  // Issue 13, item 1: what the project itself runs, not a guess over the whole tree.
  it('scripts first: the project\'s own typecheck and lint scripts replace tsconfig/ESLint-config inference', () => {
    write('tsconfig.json', '{}');
    write('eslint.config.mjs', 'export default [];');
    write('package.json', JSON.stringify({ scripts: { typecheck: 'tsc --noEmit -p tsconfig.build.json', lint: 'eslint ./src --ext .ts', 'lint:fix': 'eslint ./src --fix', test: 'vitest run' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks, [
      { name: 'typecheck', command: 'tsc --noEmit -p tsconfig.build.json', parser: 'tsc' },
      { name: 'lint', command: 'eslint ./src --ext .ts --format json', parser: 'eslint' },
      { name: 'test', command: 'npm test --silent', parser: 'vitest' },
    ]);
    assert.equal(d.origins.lint!.source, 'package.json scripts.lint');
    assert.match(d.notes.join('\n'), /eslint\.config\.mjs found, but the project lints with its own script/);
  });

  it('each lint:* script is a check when there is no lint script; fixers and formatters are not', () => {
    write('package.json', JSON.stringify({ scripts: { 'lint:js': 'eslint . -f stylish --fix', 'lint:fix': 'eslint . --fix', 'lint:types': 'tsc --noEmit', 'lint:format': 'prettier --write .', 'check-types': 'tsc -b' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks, [
      { name: 'check-types', command: 'tsc -b', parser: 'tsc' },
      { name: 'lint:js', command: 'eslint . --format json', parser: 'eslint' },
      { name: 'lint:types', command: 'tsc --noEmit', parser: 'tsc' },
    ]);
  });

  it('an ESLint script with npm pre/post scripts runs through npm, so they run too; a bare `npm x` reference is a note', () => {
    write('package.json', JSON.stringify({ scripts: { prelint: 'node gen.js', lint: 'eslint src', test: 'npm run build && npm test:unit', build: 'tsc', 'test:unit': 'mocha' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks.find((c) => c.name === 'lint'), { name: 'lint', command: 'npm run lint --silent', parser: 'eslint' });
    assert.match(d.notes.join('\n'), /test: scripts\.test: `npm test:unit` runs no script: npm answers "Unknown command"/);
  });

  it('linters other than ESLint run through their script, read by every parser that recognises the output (generic)', () => {
    write('eslint.config.mjs', 'export default [];');
    write('package.json', JSON.stringify({ scripts: { lint: 'biome check ./src && biome format ./src', 'lint:ox': 'oxlint' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks, [{ name: 'lint', command: 'npm run lint --silent', parser: 'generic' }]);
    assert.match(d.origins.lint!.reason, /every parser that recognises it/);
  });

  it('an ESLint script gets the JSON formatter in place of its own, in any spelling, and never --fix; chains and shells are run as written', () => {
    assert.equal(eslintJsonCommand('eslint ./src --ext .ts'), 'eslint ./src --ext .ts --format json');
    assert.equal(eslintJsonCommand('eslint --format=stylish --fix src'), 'eslint src --format json');
    assert.equal(eslintJsonCommand('eslint -f codeframe -o out.txt lib'), 'eslint lib --format json');
    assert.equal(eslintJsonCommand('ESLINT_USE_FLAT_CONFIG=false eslint ./src --ext .js'), 'ESLINT_USE_FLAT_CONFIG=false eslint ./src --ext .js --format json');
    assert.equal(eslintJsonCommand('cross-env TIMING=1 eslint .'), 'cross-env TIMING=1 eslint . --format json');
    assert.equal(eslintJsonCommand('eslint . && tsc'), undefined);
    assert.equal(eslintJsonCommand('eslint . | tee lint.log'), undefined);
    assert.equal(eslintJsonCommand('xo'), undefined);
    // tsc and ava scripts of one command run directly too: tsc as written (a plain one can then be
    // incremental), ava with its TAP reporter.
    assert.equal(tscDirectCommand('tsc --noEmit -p tsconfig.build.json'), 'tsc --noEmit -p tsconfig.build.json');
    assert.equal(tscDirectCommand('tsc -w'), undefined);
    assert.equal(tscDirectCommand('tsc && eslint .'), undefined);
    assert.equal(tscDirectCommand('cross-env X=1 tsc'), undefined);
    assert.equal(avaTapCommand('ava --verbose test/'), 'ava --verbose test/ --tap');
    assert.equal(avaTapCommand('ava --tap'), undefined);
    assert.equal(avaTapCommand('ava | tap-spec'), undefined);
  });

  // Issue 13, item 2: a chain is read by the runner that produces the test output.
  it('resolves npm/pnpm/yarn chains, npm-run-all globs, pre/post scripts and wrappers to the runner', () => {
    assert.equal(unwrapCommand('cross-env NODE_ENV=test FOO=1 mocha -r ts-node/register'), 'mocha -r ts-node/register');
    assert.equal(unwrapCommand('c8 --reporter lcov --reporter text node --test'), 'node --test');
    assert.equal(unwrapCommand('nyc --all --reporter=html mocha'), 'mocha');
    assert.equal(unwrapCommand('dotenv -e .env.test -- jest --ci'), 'jest --ci');
    assert.equal(unwrapCommand('NODE_OPTIONS=--experimental-vm-modules npx jest'), 'jest');
    assert.equal(unwrapCommand('pnpm exec vitest run'), 'vitest run');
    const scripts = {
      build: 'tsc -p .',
      format: 'prettier --check .',
      'test-coverage': 'c8 --check-coverage node test/index.js',
      test: 'npm run build && npm run format && npm run test-coverage',
      'test:ci': 'pnpm build && pnpm run test:unit',
      'test:unit': 'cross-env TZ=UTC vitest run',
      'test:all': 'run-s "test:unit" build',
      'test:y': 'yarn test:unit',
      'test:jest': 'dotenv -- jest',
    };
    assert.deepEqual(resolveScript(scripts, 'test').map((s) => [s.script, s.command, s.parser]), [
      ['build', 'tsc -p .', 'tsc'],
      ['format', 'prettier --check .', 'prettier'],
      ['test-coverage', 'node test/index.js', 'generic'],
    ]);
    // A test file run by plain node: no step names a runner, so every recognising parser reads the output.
    assert.equal(parserForScript(scripts, 'test'), 'generic');
    assert.equal(parserForScript(scripts, 'test:ci'), 'vitest');
    assert.equal(parserForScript(scripts, 'test:all'), 'vitest');
    assert.equal(parserForScript(scripts, 'test:y'), 'vitest');
    assert.equal(parserForScript(scripts, 'test:jest'), 'jest');
    assert.deepEqual(resolveScript({ pretest: 'tsc', test: 'mocha' }, 'test').map((s) => s.command), ['tsc', 'mocha']);
    assert.deepEqual(resolveScript({ pretest: 'tsc', test: 'mocha', posttest: 'eslint .', t: 'npm test' }, 't').map((s) => s.parser), ['tsc', 'mocha', 'eslint']);
    // Arguments a reference hands on are appended to the script it names, as the package manager does
    // (to the chain's last command: `a && b --check`), never to its pre/post hooks.
    const fmt = { lint: 'npm run fmt -- --check', fmt: 'prettier .', prefmt: 'node gen.js', check: 'pnpm run fmt -- --check', y: 'yarn fmt --check', chain: 'npm run both -- --check', both: 'eslint . && prettier .' };
    assert.deepEqual(resolveScript(fmt, 'lint').map((s) => s.command), ['node gen.js', 'prettier . --check']);
    assert.deepEqual(resolveScript(fmt, 'check').map((s) => s.command), ['node gen.js', 'prettier . --check']);
    assert.deepEqual(resolveScript(fmt, 'y').map((s) => s.command), ['node gen.js', 'prettier . --check']);
    assert.deepEqual(resolveScript(fmt, 'chain').map((s) => s.command), ['eslint .', 'prettier . --check']);
    assert.deepEqual(resolveScript({ test: 'npm run t', t: 'mocha' }, 'test').map((s) => s.command), ['mocha']);
    // `npm test:unit` is no script reference (npm: `Unknown command`), unlike `pnpm test:unit` and `yarn test:unit`.
    const bare = { test: 'npm run build && npm test:unit', build: 'esbuild src/x.ts', 'test:unit': 'node --test' };
    assert.equal(parserForScript(bare, 'test'), 'generic');
    assert.match(resolveScript(bare, 'test')[1]!.problem!, /runs no script: npm answers "Unknown command" \(`npm run test:unit` would run scripts\.test:unit\)/);
    assert.equal(parserForScript({ ...bare, test: 'pnpm run build && pnpm test:unit' }, 'test'), 'node-test');
    assert.equal(parserForScript({ ...bare, test: 'yarn build && yarn test:unit' }, 'test'), 'node-test');
    assert.equal(parserForScript({ ...bare, test: 'npm run build && npm run test:unit' }, 'test'), 'node-test');
    assert.equal(parserForScript({ lint: 'eslint . && tsc --noEmit' }, 'lint'), 'tsc', 'no runner and no unknown tool: the last tool named');
    // TypeScript runtimes and coverage wrappers around the runner.
    for (const [test, parser] of [
      ['tsx --test test/*.test.ts', 'node-test'],
      ['c8 --reporter=lcov tsx --test', 'node-test'],
      ['node --import tsx --test', 'node-test'],
      ['nyc ts-node node_modules/.bin/mocha', 'mocha'],
      ['cross-env NODE_ENV=test dotenv -e .env -- vitest run', 'vitest'],
      ['nyc --reporter=text-summary npm run test:unit', 'jest'],
      ['ts-node --esm test/run.ts', 'generic'],
    ] as const) {
      assert.equal(parserForScript({ test, 'test:unit': 'jest' }, 'test'), parser, test);
    }
    assert.equal(parserForScript({ lint: 'rimraf dist && eslint .' }, 'lint'), 'eslint', 'a build or clean step does not make a chain generic');
  });

  // Issue 13, item 5: shapes, at the level of the files that declare them.
  it('pnpm and yarn workspaces: packages from their globs (negations too), each by its own scripts; dependents followed transitively', () => {
    write('pnpm-workspace.yaml', "packages:\n  - 'packages/*'\n  - '!packages/skip'\n  - apps/web\n");
    write('package.json', JSON.stringify({ name: 'root', scripts: { test: 'pnpm -r test', lint: 'eslint .' } }));
    write('packages/core/package.json', JSON.stringify({ name: '@x/core', scripts: { test: 'vitest run', typecheck: 'tsc --noEmit' } }));
    write('packages/ui/package.json', JSON.stringify({ name: '@x/ui', dependencies: { '@x/core': 'workspace:*' }, scripts: { test: 'jest' } }));
    write('packages/skip/package.json', JSON.stringify({ name: '@x/skip', scripts: { test: 'jest' } }));
    write('apps/web/package.json', JSON.stringify({ name: 'web', devDependencies: { '@x/ui': 'workspace:^' }, scripts: { 'test:unit': 'mocha -r tsx' } }));
    write('apps/other/package.json', JSON.stringify({ name: 'other', scripts: { test: 'jest' } }));
    const d = discoverChecks(dir);
    // `pnpm -r test` runs each package's `test`: web has none, so its `test:unit` is no test CI runs.
    assert.deepEqual(d.checks.map((c) => [c.name, c.cwd, c.parser]), [
      ['lint', undefined, 'eslint'],
      ['@x/core:typecheck', 'packages/core', 'tsc'],
      ['@x/core:test', 'packages/core', 'vitest'],
      ['@x/ui:test', 'packages/ui', 'jest'],
    ]);
    assert.equal(d.origins['@x/core:test']!.source, 'packages/core/package.json scripts.test');
    assert.equal(d.origins['@x/core:test']!.package, '@x/core');
    assert.match(d.notes.join('\n'), /test: scripts\.test \("pnpm -r test"\) runs each package's own script/);
    assert.ok(d.notes.includes('web:test:unit: apps/web/package.json scripts.test:unit ("mocha -r tsx") is not run: the workspace root\'s fan-out runs its own tests (test) in each package, not scripts.test:unit'), d.notes.join('\n'));
    const ws = workspaceAt(dir)!;
    assert.equal(ws.source, 'pnpm-workspace.yaml');
    assert.deepEqual(dependentsOf(ws, ws.packages.find((p) => p.name === '@x/core')!).map((p) => p.name), ['web', '@x/ui']);
    // yarn's object form, run in a package: its own scripts, then its dependents' in their folders.
    rmSync(path.join(dir, 'pnpm-workspace.yaml'));
    write('package.json', JSON.stringify({ name: 'root', workspaces: { packages: ['packages/*', 'apps/*'] } }));
    const inCore = discoverChecks(path.join(dir, 'packages', 'core'));
    // apps/other and packages/skip are packages now, but depend on nothing of core's: not checked from it.
    assert.deepEqual(inCore.checks.map((c) => [c.name, c.cwd]), [
      ['typecheck', undefined],
      ['test', undefined],
      ['web:test:unit', '../../apps/web'],
      ['@x/ui:test', '../ui'],
    ]);
    assert.match(inCore.notes.join('\n'), /workspace: @x\/core is a package of the workspace at \.\.\/\.\.; the packages that depend on it are checked too: web, @x\/ui/);
  });

  it('packages that share a name (an example copied with its package.json) are named by their folders, and a package check named like a root check gets its folder too: no two checks share a name', () => {
    write('pnpm-workspace.yaml', "packages:\n  - 'examples/*'\n  - 'packages/*'\n");
    write('package.json', JSON.stringify({ name: 'root', scripts: { 'lint:test': 'eslint test' } }));
    write('examples/api/package.json', JSON.stringify({ name: '@x/example-api', scripts: { test: 'vitest run' } }));
    write('examples/vue/package.json', JSON.stringify({ name: '@x/example-api', scripts: { test: 'vitest run' } }));
    write('packages/lint/package.json', JSON.stringify({ name: 'lint', scripts: { test: 'jest' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks.map((c) => [c.name, c.cwd ?? '.']), [
      ['lint:test', '.'],
      ['examples/api:test', 'examples/api'],
      ['examples/vue:test', 'examples/vue'],
      ['packages/lint:test', 'packages/lint'],
    ]);
    assert.equal(d.origins['examples/vue:test']!.package, '@x/example-api');
    assert.match(d.notes.join('\n'), /packages\/lint:test: named by its folder: lint:test is another check's name/);
    // Seen from a package of that workspace: its dependents are named the same way.
    write('examples/vue/package.json', JSON.stringify({ name: '@x/example-api', dependencies: { lint: 'workspace:*' }, scripts: { test: 'vitest run' } }));
    assert.deepEqual(discoverChecks(path.join(dir, 'packages', 'lint')).checks.map((c) => c.name), ['test', 'examples/vue:test']);
  });

  it('a solution tsconfig (project references, JSONC) is checked with `tsc -b`', () => {
    write('tsconfig.json', '{\n  // JSONC\n  "files": [],\n  "references": [{ "path": "./a" }],\n}\n');
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks, [{ name: 'tsc', command: 'tsc -b', parser: 'tsc' }]);
    assert.match(d.origins.tsc!.reason, /build mode: tsconfig\.json references other projects/);
  });

  it('jest.config.ts: says whether the project has the ts-node Jest loads it with', () => {
    write('package.json', JSON.stringify({ scripts: { test: 'jest' } }));
    write('jest.config.ts', 'export default {};');
    assert.match(discoverChecks(dir).notes.join('\n'), /jest\.config\.ts: Jest loads it with the project's own ts-node/);
    rmSync(path.join(dir, 'node_modules'));
    assert.match(discoverChecks(dir).notes.join('\n'), /jest\.config\.ts: Jest needs ts-node to load it and the project does not install it: the check fails until it does \(`npm i -D ts-node`\)/);
    write('jest.config.ts', '/** @jest-config-loader esbuild-register */\nexport default {};');
    assert.match(discoverChecks(dir).notes.join('\n'), /Jest needs esbuild-register to load it/);
  });

  it('mocha: the reporter from the flag or .mocharc decides the parser, and an unreadable one says generic', () => {
    write('package.json', JSON.stringify({ scripts: { test: 'mocha' } }));
    write('.mocharc.json', '{ "reporter": "tap" }');
    assert.deepEqual(discoverChecks(dir).origins.test, { source: 'package.json scripts.test', parser: 'tap', reason: 'mocha with its `tap` reporter (from .mocharc.json)' });
    write('.mocharc.json', '{ "reporter": "xunit" }');
    assert.equal(discoverChecks(dir).origins.test!.parser, 'generic');
    assert.match(discoverChecks(dir).origins.test!.reason, /mocha's `xunit` reporter \(from \.mocharc\.json\) has no parser here: the generic parser reads its output/);
    write('package.json', JSON.stringify({ scripts: { test: 'mocha -R spec' } }));
    assert.equal(discoverChecks(dir).origins.test!.parser, 'mocha', 'the flag wins over the config');
  });

  it('a Biome script that is one lint call runs with its GitHub reporter, read by the biome parser; never --write', () => {
    assert.equal(biomeGithubCommand('biome check ./src'), 'biome check ./src --reporter=github');
    assert.equal(biomeGithubCommand('biome lint --write --reporter=summary src'), 'biome lint src --reporter=github');
    assert.equal(biomeGithubCommand('npx @biomejs/biome ci --reporter json .'), 'npx @biomejs/biome ci . --reporter=github', 'through npx, by its package name');
    assert.equal(biomeGithubCommand('biome ci --reporter json .'), 'biome ci . --reporter=github');
    assert.equal(biomeGithubCommand('biome format .'), 'biome format . --reporter=github', 'a format check: each file it would reformat is a diagnostic');
    assert.equal(biomeGithubCommand('biome format --write .'), 'biome format . --reporter=github', 'never --write');
    assert.equal(biomeGithubCommand('biome lint . && tsc'), undefined);
    write('package.json', JSON.stringify({ scripts: { lint: 'biome check --write ./src' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks, [{ name: 'lint', command: 'biome check ./src --reporter=github', parser: 'biome' }]);
    assert.match(d.origins.lint!.reason, /^Biome, its reporter replaced by `--reporter=github`/);
    assert.equal(inferParser('biome lint --reporter=github src'), 'biome');
    assert.equal(inferParser('biome lint src'), 'generic', 'its default reporter has no parser');
  });

  it('an oxlint script that is one call runs with its GitHub format, read by the oxlint parser; never --fix', () => {
    assert.equal(oxlintGithubCommand('oxlint src'), 'oxlint src --format=github');
    assert.equal(oxlintGithubCommand('oxlint'), 'oxlint --format=github');
    assert.equal(oxlintGithubCommand('oxlint --fix --format stylish -D correctness src'), 'oxlint -D correctness src --format=github');
    assert.equal(oxlintGithubCommand('oxlint -f=json --fix-suggestions --deny-warnings .'), 'oxlint --deny-warnings . --format=github');
    assert.equal(oxlintGithubCommand('npx oxlint --type-aware'), 'npx oxlint --type-aware --format=github', 'through npx');
    assert.equal(oxlintGithubCommand('oxlint && eslint .'), undefined);
    assert.equal(oxlintGithubCommand('oxlint | tee lint.log'), undefined);
    write('package.json', JSON.stringify({ scripts: { lint: 'oxlint --fix src' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks, [{ name: 'lint', command: 'oxlint src --format=github', parser: 'oxlint' }]);
    assert.match(d.origins.lint!.reason, /^oxlint, its format replaced by `--format=github`/);
    assert.equal(inferParser('oxlint --format=github src'), 'oxlint');
    assert.equal(inferParser('npx oxlint -f github'), 'oxlint');
    assert.equal(inferParser('oxlint src'), 'generic', 'its default format has no parser');
  });

  it('Biome or oxlint in a chain and xo are run through their script and said to be read by the generic parser; uvu by its own', () => {
    write('package.json', JSON.stringify({ scripts: { lint: 'biome check ./src && biome format ./src', test: 'uvu tests' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks.map((c) => [c.name, c.command, c.parser]), [['lint', 'npm run lint --silent', 'generic'], ['test', 'npm test --silent', 'uvu']]);
    assert.match(d.origins.lint!.reason, /^Biome's default reporter \(a script that is one `biome lint`, `check`, `ci` or `format` call runs with `--reporter=github` instead\) has no parser of its own here: the generic parser reads its output/);
    assert.match(d.origins.test!.reason, /^the tool it runs \(`uvu tests` in scripts\.test\)/);
    write('package.json', JSON.stringify({ scripts: { 'lint:ox': 'oxlint src && oxlint test', 'lint:xo': 'xo' } }));
    const reasons = Object.values(discoverChecks(dir).origins).map((o) => o.reason);
    assert.match(reasons[0]!, /^oxlint's default format \(a script that is one oxlint call runs with `--format=github` instead\) has no parser of its own here/);
    assert.match(reasons[1]!, /^xo has no parser of its own here/);
  });

  it('scripts that call a package manager which is not installed say so', () => {
    write('package.json', JSON.stringify({ scripts: { build: 'tsc', test: 'pnpm run build && vitest run' } }));
    const note = /test: the scripts call pnpm, which is not installed \(not in node_modules\/\.bin or on PATH\): the check fails where they do/;
    if (findExecutable('pnpm', dir) === undefined) assert.match(discoverChecks(dir).notes.join('\n'), note);
    else assert.doesNotMatch(discoverChecks(dir).notes.join('\n'), note);
  });

  it('explains configured checks too: the setting or flag, and the parser named or inferred', () => {
    write('package.json', JSON.stringify({ scripts: { test: 'npm run build && npm run cov', build: 'tsc', cov: 'c8 node --test' } }));
    const e = explainChecks(dir, [{ name: 't', command: 'npm test' }, { name: 'x', command: 'make x', parser: 'tap' }], {}, '--check');
    assert.deepEqual(e.t, { source: '--check', parser: 'node-test', reason: 'inferred from the command' });
    assert.deepEqual(e.x, { source: '--check', parser: 'tap', reason: 'the parser the check names' });
    const found = discoverChecks(dir);
    const d = explainChecks(dir, found.checks, found.origins);
    assert.equal(d.test!.source, 'package.json scripts.test');
    assert.equal(d.test!.parser, 'node-test');
    assert.match(d.test!.reason, /test runner in the chain \(`node --test` in scripts\.cov\)/);
    assert.equal(explainChecks(dir, [{ name: 'u', command: 'vitest run' }], {}).u!.source, 'fixUntilGreen.checks');
  });

  // Fixture projects in the shapes of issue 13: discovery picks the project's own scripts and the right parser.
  const discoverAndVerify = async (fixture: string): Promise<{ checks: CheckSpec[]; failures: Failure[]; project: string; cleanup: () => void }> => {
    const s = copyFixture(`verify/${fixture}`);
    const { checks } = discoverChecks(s.project);
    const v = new Verifier({ root: s.project, checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 });
    assert.deepEqual(v.preflight(), []);
    const r = await v.verify();
    return { checks, failures: r.failures, project: s.project, cleanup: s.cleanup };
  };

  it('lint scope (flat config, `eslint ./src --ext .ts`): only the errors the project\'s own lint sees', async () => {
    const r = await discoverAndVerify('scripts-lint-scope');
    try {
      assert.deepEqual(r.checks, [
        { name: 'typecheck', command: 'tsc --noEmit -p .', parser: 'tsc' },
        { name: 'lint', command: 'eslint ./src --ext .ts --format json', parser: 'eslint' },
      ]);
      const lint = r.failures.filter((f) => f.check === 'lint');
      assert.deepEqual(lint.map((f) => [f.file, f.line, f.id]), [
        ['src/price.ts', 7, '@typescript-eslint/no-unused-vars'],
        ['src/price.ts', 12, '@typescript-eslint/no-explicit-any'],
      ]);
      // What the whole-tree inference would have run: errors in a config file the project never lints.
      const whole = await new Verifier({ root: r.project, checks: [{ name: 'eslint', command: 'eslint --format json .', parser: 'eslint' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
      assert.ok(whole.failures.some((f) => f.file === 'jest.config.js'), 'the fixture has errors outside ./src');
    } finally {
      r.cleanup();
    }
  });

  it('lint scope (legacy .eslintrc.json, env-prefixed script with its own formatter): JSON report, only ./src', async () => {
    const r = await discoverAndVerify('scripts-lint-legacy');
    try {
      assert.deepEqual(r.checks, [{ name: 'lint', command: 'ESLINT_USE_FLAT_CONFIG=false eslint ./src --ext .js --format json', parser: 'eslint' }]);
      assert.deepEqual(r.failures.map((f) => [f.file, f.line, f.id]), [
        ['src/queue.js', 5, 'no-unused-vars'],
        ['src/queue.js', 14, 'no-undef'],
      ]);
    } finally {
      r.cleanup();
    }
  });

  it('chained test script (build && format && coverage of a plain `node` test run): every node:test failure, with its file', async () => {
    const r = await discoverAndVerify('chain-node-test');
    try {
      assert.deepEqual(r.checks, [{ name: 'test', command: 'npm test --silent', parser: 'generic' }]);
      assert.deepEqual(r.failures.map((f) => [f.file, f.id]).sort(), [
        ['test/stock.test.js', 'empty lists the skus with none left'],
        ['test/stock.test.js', 'quantity of a known sku'],
        ['test/stock.test.js', 'take lowers the quantity'],
        ['test/stock.test.js', 'total counts every item'],
      ]);
      assert.ok(r.failures.every((f) => f.line !== undefined), 'each failure located');
    } finally {
      r.cleanup();
    }
  });

  it('chained test script failing at its build step: the tsc errors, not one failure with no file', async () => {
    const s = copyFixture('verify/chain-node-test');
    try {
      const file = path.join(s.project, 'src', 'stock.js');
      writeFileSync(file, readFileSync(file, 'utf8').replace('return item ? item.qty + 1 : 0;', "return item ? item.qty + 1 : '0';"));
      const { checks } = discoverChecks(s.project);
      const r = await new Verifier({ root: s.project, checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
      assert.deepEqual(r.failures.map((f) => [f.file, f.line, f.id]), [['src/stock.js', 14, 'TS2322']]);
    } finally {
      s.cleanup();
    }
  });

  // Issue 27, class 5: a pnpm selector stands for the scripts it matches, as pnpm reads it.
  it('a pnpm selector script (`pnpm run "/^test:/"`) is the scripts it matches, each a check with its own parser', () => {
    const scripts = { test: 'pnpm run --parallel "/^test:/"', 'test:unit': 'vitest run', 'test:types': 'tsc --noEmit', 'pretest:x': 'echo', lint: "pnpm '/^lint:(?!fix)/'", 'lint:src': 'eslint src', 'lint:fix': 'eslint --fix src' };
    write('package.json', JSON.stringify({ scripts }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks, [
      { name: 'lint:src', command: 'eslint src --format json', parser: 'eslint' },
      { name: 'test:unit', command: 'npm run test:unit --silent', parser: 'vitest' },
      { name: 'test:types', command: 'tsc --noEmit', parser: 'tsc' },
    ], d.notes.join('\n'));
    assert.match(d.notes.join('\n'), /^test: package\.json scripts\.test \("pnpm run --parallel "\/\^test:\/""\) is a pnpm selector: pnpm runs every script whose name matches \/\^test:\/ \(test:unit, test:types\); each runs as a check of its own, read by its own parser and run once \(pnpm itself is not needed\)$/m);
    assert.equal(d.origins['test:types']!.source, 'package.json scripts.test:types (run by scripts.test: pnpm /^test:/)');
    // What the selector runs, as the scripts' steps: what the parser inference and `dropRepeats` read.
    assert.deepEqual(resolveScript(scripts, 'test').map((st) => [st.script, st.command]), [['test:unit', 'vitest run'], ['test:types', 'tsc --noEmit']]);
    assert.equal(parserForScript(scripts, 'test'), 'vitest');
  });

  it('a pnpm selector pnpm would refuse (flags) or that matches nothing stays the script it is', () => {
    write('package.json', JSON.stringify({ scripts: { test: 'pnpm run "/^test:/i"', 'test:unit': 'vitest run', lint: 'pnpm run "/^lint:/"' } }));
    const d = discoverChecks(dir);
    assert.deepEqual(d.checks.map((c) => [c.name, c.command]), [['lint', 'npm run lint --silent'], ['test', 'npm test --silent']]);
  });
});
