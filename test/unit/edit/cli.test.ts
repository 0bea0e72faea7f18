// `fix-until-green apply` and `revert` as real processes: flags, exit codes, JSON.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO } from '../../support/fixtures';
import { fullTreeHash } from './support/tree';

const CLI = path.join(REPO, 'dist', 'cli.js');

describe('edit/cli: apply and revert', function () {
  this.timeout(60_000);
  let dir: string;
  let root: string;
  let storage: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-cli-'));
    root = path.join(dir, 'ws');
    storage = path.join(dir, 'storage');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 1;\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const cli = (args: string[], input = ''): { status: number | null; stdout: string; stderr: string } => {
    const p = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', cwd: dir });
    return { status: p.status, stdout: p.stdout, stderr: p.stderr };
  };
  const REPLY = 'src/a.ts\n<<<<<<< SEARCH\nexport const a = 1;\n=======\nexport const a = 2;\n>>>>>>> REPLACE\n';

  it('--dry-run says whether the reply applies and writes nothing, not even a checkpoint', () => {
    const before = fullTreeHash(root);
    const ok = cli(['apply', '--cwd', root, '--storage', storage, '--dry-run'], REPLY);
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout), { applied: true, files: [{ path: 'src/a.ts', kind: 'modify', added: 1, removed: 1 }], errors: [], dryRun: true });
    const bad = cli(['apply', '--cwd', root, '--storage', storage, '--dry-run'], REPLY.replace('a = 1', 'a = 9'));
    assert.equal(bad.status, 1);
    assert.equal(JSON.parse(bad.stdout).applied, false);
    assert.equal(fullTreeHash(root), before);
    assert.equal(existsSync(storage), false);
  });

  it('apply then revert --run restores the file; a bare revert finds nothing interrupted', () => {
    const a = cli(['apply', '--cwd', root, '--storage', storage], REPLY);
    assert.equal(a.status, 0, a.stderr);
    const { runId } = JSON.parse(a.stdout) as { runId: string };
    assert.equal(readFileSync(path.join(root, 'src/a.ts'), 'utf8'), 'export const a = 2;\n');
    const none = cli(['revert', '--cwd', root, '--storage', storage]);
    assert.equal(none.status, 0);
    assert.match(none.stdout, /no interrupted run to revert .* \(1 finished run\(s\)/);
    const r = cli(['revert', '--cwd', root, '--storage', storage, '--run', runId]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /src\/a\.ts: restored/);
    assert.equal(readFileSync(path.join(root, 'src/a.ts'), 'utf8'), 'export const a = 1;\n');
  });

  it('exits 1 with a reason for a reply without edits, 2 for bad flags or an unknown run', () => {
    const none = cli(['apply', '--cwd', root, '--storage', storage], 'I think the code is fine.\n');
    assert.equal(none.status, 1);
    assert.deepEqual(JSON.parse(none.stdout).errors, ['the reply contains no edits']);
    assert.equal(cli(['apply', '--cwd', root, '--bogus'], REPLY).status, 2);
    assert.equal(cli(['apply', '--cwd', path.join(dir, 'missing')], REPLY).status, 2);
    const unknown = cli(['revert', '--cwd', root, '--storage', storage, '--run', 'nope']);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /--run: no run "nope"/);
  });

  it('reads editFormat from .vscode/settings.json', () => {
    mkdirSync(path.join(root, '.vscode'));
    writeFileSync(path.join(root, '.vscode/settings.json'), '{ "fixUntilGreen.editFormat": "diff" }\n');
    const r = cli(['apply', '--cwd', root, '--storage', storage], REPLY);
    assert.equal(r.status, 1);
    assert.match(JSON.parse(r.stdout).errors[0], /editFormat is "diff"/);
  });
});
