// `fix-until-green check` and `parse`, run as real processes from the built dist/cli.js.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO, copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const CLI = path.join(REPO, 'dist', 'cli.js');
const OUTPUTS = path.join(REPO, 'test', 'fixtures', 'verify', 'outputs');

function cli(args: string[], opts: { input?: Buffer | string; env?: Record<string, string> } = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { input: opts.input ?? '', encoding: 'utf8', env: { ...process.env, ...opts.env }, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI check and parse', function () {
  this.timeout(240000);
  const scratch: Scratch[] = [];
  const fixture = (name: string): Scratch => {
    const s = copyFixture(`verify/${name}`);
    scratch.push(s);
    return s;
  };
  before(() => {
    execFileSync(process.execPath, [path.join(REPO, 'scripts', 'ensureBuilt.mjs')], { cwd: REPO, stdio: 'inherit' });
  });
  after(() => {
    for (const s of scratch) s.cleanup();
  });

  it('check --json on a failing project: exit 1 and {green, failureHash, failures, checks} from discovered checks', () => {
    const s = fixture('tsc');
    const r = cli(['check', '--cwd', s.project, '--storage', s.storage, '--json']);
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as { green: boolean; failureHash: string; failures: { file: string; id: string }[]; checks: { name: string; exitCode: number; durationMs: number; failures: unknown[] }[]; discovered: boolean };
    assert.equal(out.green, false);
    assert.match(out.failureHash, /^[0-9a-f]{64}$/);
    assert.deepEqual(out.failures.map((f) => [f.file, f.id]), [['src/cart.ts', 'TS2345'], ['src/price.ts', 'TS2322'], ['src/price.ts', 'TS2322']]);
    assert.equal(out.checks.length, 1);
    assert.deepEqual(Object.keys(out.checks[0]!).slice(0, 4), ['name', 'exitCode', 'durationMs', 'failures']);
    assert.equal(out.checks[0]!.name, 'tsc');
    assert.equal(out.checks[0]!.exitCode, 2);
    assert.equal(out.checks[0]!.failures.length, 3);
    assert.equal(out.discovered, true);
  });

  it('check on a green project: exit 0; the human output says what was discovered', () => {
    const s = fixture('green');
    const r = cli(['check', '--cwd', s.project, '--storage', s.storage]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /^checks \(discovered\):\n {2}test: npm test --silent\n/);
    assert.match(r.stdout, /scripts\.test \("node --test"\), read with the node-test parser/);
    assert.match(r.stdout, /^green · [0-9a-f]{12}$/m);
  });

  it('check uses fixUntilGreen.checks from .vscode/settings.json, and --check overrides it', () => {
    const s = fixture('green');
    mkdirSync(path.join(s.project, '.vscode'));
    writeFileSync(path.join(s.project, '.vscode', 'settings.json'), '{\n  // JSONC, as VS Code writes it\n  "fixUntilGreen.checks": [{ "name": "boom", "command": "node -e \\"process.exit(3)\\"" }],\n}\n');
    const fromFile = cli(['check', '--cwd', s.project, '--storage', s.storage, '--json']);
    assert.equal(fromFile.code, 1);
    const out = JSON.parse(fromFile.stdout) as { discovered: boolean; failures: { check: string; id: string; message: string }[] };
    assert.equal(out.discovered, false);
    assert.deepEqual(out.failures.map((f) => [f.check, f.id, f.message]), [['boom', 'exit', 'boom failed with exit code 3 and no output']]);
    const flag = cli(['check', '--cwd', s.project, '--storage', s.storage, '--json', '--check', 'ok=node -e 0']);
    assert.equal(flag.code, 0, flag.stderr);
  });

  it('check exits 2 on usage and preflight errors, naming the problem', () => {
    const s = fixture('green');
    const unknown = cli(['check', '--cwd', s.project, '--bogus']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--bogus/);
    const badCheck = cli(['check', '--cwd', s.project, '--check', 'no-equals-sign']);
    assert.equal(badCheck.code, 2);
    assert.match(badCheck.stderr, /--check: "no-equals-sign" must be NAME=COMMAND/);
    const missing = cli(['check', '--cwd', s.project, '--check', 'lint=fug-missing-linter .']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /executable "fug-missing-linter" not found/);
    const noDir = cli(['check', '--cwd', path.join(s.dir, 'nope')]);
    assert.equal(noDir.code, 2);
    assert.match(noDir.stderr, /is not a directory/);
  });

  it('parse reads a captured output on stdin and prints {failures, failureHash}', () => {
    const index = JSON.parse(readFileSync(path.join(OUTPUTS, 'index.json'), 'utf8')) as { name: string; file: string; root: string; parser: string }[];
    const c = index.find((x) => x.name === 'jest-text')!;
    const r = cli(['parse', '--parser', 'jest', '--root', c.root], { input: readFileSync(path.join(OUTPUTS, c.file)) });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { failures: { file: string; id: string }[]; failureHash: string };
    assert.equal(out.failures.length, 5);
    assert.ok(out.failures.every((f) => !f.file.startsWith('/')));
    assert.match(out.failureHash, /^[0-9a-f]{64}$/);
    // The same output coloured parses to the same identity.
    const colour = index.find((x) => x.name === 'jest-text-color')!;
    const r2 = cli(['parse', '--parser', 'jest', '--root', colour.root], { input: readFileSync(path.join(OUTPUTS, colour.file)) });
    assert.equal((JSON.parse(r2.stdout) as { failureHash: string }).failureHash, out.failureHash);
  });

  it('parse: non-UTF-8 input is decoded with replacement; --exit-code turns unknown output into a generic failure', () => {
    const bytes = Buffer.concat([Buffer.from('Segfault in '), Buffer.from([0xff, 0xfe]), Buffer.from('\r\n')]);
    const quiet = cli(['parse', '--parser', 'generic'], { input: bytes });
    assert.deepEqual(JSON.parse(quiet.stdout), { failures: [], failureHash: JSON.parse(cli(['parse', '--parser', 'tsc']).stdout).failureHash });
    const failed = cli(['parse', '--parser', 'generic', '--exit-code', '139', '--check', 'native'], { input: bytes });
    const out = JSON.parse(failed.stdout) as { failures: { check: string; id: string; message: string }[] };
    assert.deepEqual(out.failures, [{ check: 'native', id: 'exit', message: 'Segfault in \uFFFD\uFFFD' }]);
  });

  it('parse exits 2 on a missing or unknown parser', () => {
    const none = cli(['parse']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--parser is required/);
    const bad = cli(['parse', '--parser', 'pytest']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /"pytest" is not one of tsc, eslint, mocha, jest, vitest, node-test, tap, generic/);
  });
});
