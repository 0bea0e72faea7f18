// Finding a workspace's checks when none are configured.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { discoverChecks, resolveChecks } from '../../../src/core/verify/discover';
import { expandScript, inferParser, parserForCommand, parserForScript } from '../../../src/core/verify/infer';
import { Verifier } from '../../../src/core/verify/verifier';
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

  it('configured checks win; discovery only when none are configured', () => {
    write('tsconfig.json', '{}');
    const configured = [{ name: 'mine', command: 'node -e 0' }];
    assert.deepEqual(resolveChecks(dir, configured), { checks: configured, notes: [], discovered: false });
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
});
