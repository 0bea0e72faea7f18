// The layering rules of .dependency-cruiser.mjs (run by `npm run lint`) on a copy of src/ with
// deliberate violations: each kind of wrong import fails, under the rule that names it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO } from '../../support/fixtures';

function cruise(dir: string): { code: number; out: string } {
  try {
    const out = execFileSync(process.execPath, [path.join(REPO, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), 'src', '--config', '.dependency-cruiser.mjs'], { cwd: dir, encoding: 'utf8' });
    return { code: 0, out };
  } catch (e) {
    const x = e as { status: number; stdout: string; stderr: string };
    return { code: x.status, out: x.stdout + x.stderr };
  }
}

describe('layering rules (dependency-cruiser)', function () {
  this.timeout(120000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-layers-'));
    for (const f of ['src', '.dependency-cruiser.mjs', 'tsconfig.json', 'package.json']) cpSync(path.join(REPO, f), path.join(dir, f), { recursive: true });
    symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('fails on an uphill import, a folder cycle, the extension importing the CLI, vscode outside the extension, the webview\'s modules importing the extension and a front end building its own run', () => {
    const add = (rel: string, line: string): void => appendFileSync(path.join(dir, rel), `\n${line}\n`);
    // verify → loop is uphill, and with loop → model → verify it closes a cycle of folders.
    add('src/core/verify/report.ts', "import type { RunOptions } from '../loop/run';\nexport type Uphill = RunOptions;");
    add('src/vscode/logger.ts', "export { UsageError } from '../cli/errors';");
    add('src/evals/calibrate.ts', "import * as vscode from 'vscode';\nexport const host = vscode.version;");
    add('src/cli/errors.ts', "export { Run } from '../core/loop/run';");
    add('src/core/trace/trace.ts', "export { createRunEngine } from '../engine';");
    // The webview's modules: neither the vscode API nor the rest of the extension.
    add('src/vscode/common/stepWords.ts', "import * as vscode from 'vscode';\nexport const editorVersion = vscode.version;");
    add('src/vscode/common/protocol.ts', "export type { FolderEngine } from '../folderEngine';");
    const r = cruise(dir);
    assert.equal(r.code !== 0, true, r.out);
    for (const rule of [
      'core-part-imports-downhill: src/core/verify/report.ts → src/core/loop/run.ts',
      'no-folder-cycle: src/core/verify',
      'vscode-not-cli: src/vscode/logger.ts → src/cli/errors.ts',
      'vscode-api-in-the-extension-only: src/evals/calibrate.ts → node_modules/@types/vscode/index.d.ts',
      'front-ends-build-through-the-engine: src/cli/errors.ts → src/core/loop/run.ts',
      'trace-imports-downhill: src/core/trace/trace.ts → src/core/engine.ts',
      'vscode-common-runs-anywhere: src/vscode/common/stepWords.ts → node_modules/@types/vscode/index.d.ts',
      'vscode-common-runs-anywhere: src/vscode/common/protocol.ts → src/vscode/folderEngine.ts',
    ]) {
      assert.ok(r.out.includes(rule), `expected "${rule}" in:\n${r.out}`);
    }
  });
});
