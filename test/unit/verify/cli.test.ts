// `fix-until-green check` and `parse`: in-process through the CLI's entry (`main`), and as real
// processes from the built dist/cli.js where the process is what is tested.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ParseIo } from '../../../src/cli/parseCommand';
import { main } from '../../../src/cli/main';
import { REPO, copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const CLI = path.join(REPO, 'dist', 'cli.js');
const OUTPUTS = path.join(REPO, 'test', 'fixtures', 'verify', 'outputs');

type Result = { code: number | null; stdout: string; stderr: string };

/** The built CLI as a real process: for what only a process shows (exit status, bytes on stdin). */
function cliProcess(args: string[], opts: { input?: Buffer | string } = {}): Result {
  const r = spawnSync(process.execPath, [CLI, ...args], { input: opts.input ?? '', encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same command in this process, its output captured: the command's own code without a process start. */
async function cli(args: string[], opts: { input?: Buffer | string } = {}): Promise<Result> {
  const out: string[] = [];
  const err: string[] = [];
  const io: ParseIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), readStdin: async () => Buffer.from(opts.input ?? '') };
  const code = await main(args, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
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

  it('check --json on a failing project: exit 1 and {green, failureHash, failures, checks} from discovered checks', async () => {
    const s = fixture('tsc');
    const r = cliProcess(['check', '--cwd', s.project, '--storage', s.storage, '--json']);
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

  it('check on a green project: exit 0; the human output says what was discovered', async () => {
    const s = fixture('green');
    const r = await cli(['check', '--cwd', s.project, '--storage', s.storage]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /^checks \(discovered\):\n {2}test: npm test --silent\n/);
    assert.match(r.stdout, /scripts\.test \("node --test"\); the project's own tests, read with the node-test parser/);
    assert.match(r.stdout, /^green · [0-9a-f]{12}$/m);
  });

  it('check uses fixUntilGreen.checks from .vscode/settings.json, and --check overrides it', async () => {
    const s = fixture('green');
    mkdirSync(path.join(s.project, '.vscode'));
    writeFileSync(path.join(s.project, '.vscode', 'settings.json'), '{\n  // JSONC, as VS Code writes it\n  "fixUntilGreen.checks": [{ "name": "boom", "command": "node -e \\"process.exit(3)\\"" }],\n}\n');
    const fromFile = await cli(['check', '--cwd', s.project, '--storage', s.storage, '--json']);
    assert.equal(fromFile.code, 1);
    const out = JSON.parse(fromFile.stdout) as { discovered: boolean; failures: { check: string; id: string; message: string }[] };
    assert.equal(out.discovered, false);
    assert.deepEqual(out.failures.map((f) => [f.check, f.id, f.message]), [['boom', 'exit', 'boom failed with exit code 3 and no output']]);
    const flag = await cli(['check', '--cwd', s.project, '--storage', s.storage, '--json', '--check', 'ok=node -e 0']);
    assert.equal(flag.code, 0, flag.stderr);
  });

  // Issue 13: where each check comes from, which parser reads it, and where the time went.
  it('check --json: per check its origin and parser, and how long each run and re-run took', async () => {
    const s = fixture('chain-node-test');
    const r = await cli(['check', '--cwd', s.project, '--storage', s.storage, '--json']);
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as { checks: { name: string; durationMs: number; runs: number; runDurationsMs: number[]; origin: { source: string; parser: string; reason: string } }[] };
    const [test] = out.checks;
    assert.equal(test!.origin.source, 'package.json scripts.test');
    assert.equal(test!.origin.parser, 'generic');
    assert.match(test!.origin.reason, /every parser that recognises it/);
    // A failing test check is re-run once (flakyReruns 1) to confirm its failures: two runs, each timed.
    assert.equal(test!.runs, 2);
    assert.equal(test!.runDurationsMs.length, 2);
    assert.ok(test!.runDurationsMs.every((ms) => ms > 0));
    assert.equal(test!.runDurationsMs[0]! + test!.runDurationsMs[1]!, test!.durationMs);
  });

  // Issue 39: how each check ran and what its run covered, in the JSON as in the text.
  it('check --json and --explain: each check\'s mode and note, and the chains whose parts run once', async () => {
    const s = fixture('chainOnce');
    const j = await cli(['check', '--cwd', s.project, '--storage', s.storage, '--json']);
    assert.equal(j.code, 0, j.stderr + j.stdout);
    const out = JSON.parse(j.stdout) as { chains: string[]; checks: { name: string; mode: string; note?: string }[] };
    assert.equal(out.chains.length, 1);
    assert.match(out.chains[0]!, /^test: its chain's `eslint src` \(the check lint\) runs once per pass/);
    const test = out.checks.find((c) => c.name === 'test')!;
    assert.equal(test.mode, 'full');
    assert.match(test.note ?? '', /^its chain's `eslint src` ran once, as lint \(passed\): the rest ran alone \(`node --test`\)/);
    assert.equal(out.checks.find((c) => c.name === 'lint')!.note, undefined);
    const t = await cli(['check', '--cwd', s.project, '--storage', s.storage, '--explain']);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^ {2}test: ok \(exit 0, [\d.]+ s\)\n {4}note: its chain's `eslint src` ran once, as lint/m);
  });

  it('check --explain: each check\'s command, where it came from and why its parser, before the results', async () => {
    const s = fixture('scripts-lint-scope');
    const r = await cli(['check', '--cwd', s.project, '--storage', s.storage, '--explain']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^checks \(discovered\), where they come from and how their output is read:\n {2}typecheck: tsc --noEmit -p \.\n {4}from: {3}package\.json scripts\.typecheck\n {4}parser: tsc \(tsc, run directly as the script runs it/);
    assert.match(r.stdout, /\n {2}lint: eslint \.\/src --ext \.ts --format json\n {4}from: {3}package\.json scripts\.lint\n {4}parser: eslint \(ESLint, its formatter replaced by `--format json`/);
    assert.match(r.stdout, /eslint\.config\.mjs found, but the project lints with its own script/);
    assert.match(r.stdout, /^ {2}lint: 2 failure\(s\)/m);
  });

  it('check --explain in a monorepo: each package\'s check, its folder and its package.json script', async () => {
    const s = fixture('monorepo');
    const r = await cli(['check', '--cwd', s.project, '--storage', s.storage, '--explain']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /\n {2}@fx\/units:test: npm test --silent \(in packages\/units\)\n {4}from: {3}packages\/units\/package\.json scripts\.test\n {4}parser: node-test/);
    assert.match(r.stdout, /\n {2}@fx\/report:test: npm test --silent \(in packages\/report\)\n/);
    assert.match(r.stdout, /^ {2}@fx\/units:test: 1 failure\(s\)/m);
  });

  it('check exits 2 on usage and preflight errors, naming the problem', async () => {
    const s = fixture('green');
    const unknown = await cli(['check', '--cwd', s.project, '--bogus']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--bogus/);
    const badCheck = await cli(['check', '--cwd', s.project, '--check', 'no-equals-sign']);
    assert.equal(badCheck.code, 2);
    assert.match(badCheck.stderr, /--check: "no-equals-sign" must be NAME=COMMAND/);
    const missing = await cli(['check', '--cwd', s.project, '--check', 'lint=fug-missing-linter .']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /executable "fug-missing-linter" not found/);
    const noDir = await cli(['check', '--cwd', path.join(s.dir, 'nope')]);
    assert.equal(noDir.code, 2);
    assert.match(noDir.stderr, /is not a directory/);
  });

  it('parse reads a captured output on stdin and prints {failures, failureHash}', async () => {
    const index = JSON.parse(readFileSync(path.join(OUTPUTS, 'index.json'), 'utf8')) as { name: string; file: string; root: string; parser: string }[];
    const c = index.find((x) => x.name === 'jest-text')!;
    const r = await cli(['parse', '--parser', 'jest', '--root', c.root], { input: readFileSync(path.join(OUTPUTS, c.file)) });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { failures: { file: string; id: string }[]; failureHash: string };
    assert.equal(out.failures.length, 5);
    assert.ok(out.failures.every((f) => !f.file.startsWith('/')));
    assert.match(out.failureHash, /^[0-9a-f]{64}$/);
    // The same output coloured parses to the same identity.
    const colour = index.find((x) => x.name === 'jest-text-color')!;
    const r2 = await cli(['parse', '--parser', 'jest', '--root', colour.root], { input: readFileSync(path.join(OUTPUTS, colour.file)) });
    assert.equal((JSON.parse(r2.stdout) as { failureHash: string }).failureHash, out.failureHash);
  });

  it('parse: non-UTF-8 input is decoded with replacement; --exit-code turns unknown output into a generic failure', async () => {
    const bytes = Buffer.concat([Buffer.from('Segfault in '), Buffer.from([0xff, 0xfe]), Buffer.from('\r\n')]);
    const quiet = cliProcess(['parse', '--parser', 'generic'], { input: bytes });
    assert.deepEqual(JSON.parse(quiet.stdout), { failures: [], failureHash: JSON.parse((await cli(['parse', '--parser', 'tsc'])).stdout).failureHash });
    const failed = cliProcess(['parse', '--parser', 'generic', '--exit-code', '139', '--check', 'native'], { input: bytes });
    const out = JSON.parse(failed.stdout) as { failures: { check: string; id: string; message: string }[] };
    assert.deepEqual(out.failures, [{ check: 'native', id: 'exit', message: 'Segfault in \uFFFD\uFFFD' }]);
  });

  it('parse exits 2 on a missing or unknown parser', async () => {
    const none = await cli(['parse']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--parser is required/);
    const bad = await cli(['parse', '--parser', 'pytest']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /"pytest" is not one of tsc, eslint, biome, oxlint, mocha, jest, vitest, node-test, tap, ava, uvu, prettier, generic/);
  });
});
