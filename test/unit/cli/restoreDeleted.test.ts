// A check that deletes the file the model edited (issue 29): the run's final restore recreates it
// with its original bytes (recreating a file that is gone overwrites nothing of anyone's) and the
// outcome stays `punt`; a file changed, not deleted, behind the run's back stays a conflict.
// A real CLI process, real checks, real files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, ensureBuilt } from '../../support/cli';
import { tempTree } from '../../support/fixtures';

const ORIGINAL = 'module.exports = 1;\n';
const REPLY = 'STATUS: in_progress\nCONFIDENCE: 0.5\nPOSTMORTEM: x\n\n```diff\n--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1 @@\n-module.exports = 1;\n+module.exports = 2; // EDIT\n```\n';

function run(checkBody: string): { out: { stopReason: string; outcome: string; detail: string }; project: string; cleanup(): void } {
  const t = tempTree({ 'project/src/a.js': ORIGINAL, 'project/c.cjs': checkBody }, 'fug-deleted-');
  const replay = path.join(t.dir, 'replay.json');
  writeFileSync(replay, JSON.stringify({ responses: [{ text: REPLY, usage: { input: 1, output: 1 } }] }));
  const project = path.join(t.dir, 'project');
  const r = spawnSync(process.execPath, [CLI, 'run', '--cwd', project, '--model', `replay:${replay}`, '--check', 'c=node c.cjs', '--max-steps', '1', '--storage', path.join(t.dir, 'storage'), '--json'], { encoding: 'utf8', timeout: 100_000 });
  assert.equal(r.status, 1, r.stderr);
  return { out: JSON.parse(r.stdout) as { stopReason: string; outcome: string; detail: string }, project, cleanup: t.cleanup };
}

describe('the final restore recreates a file a check deleted (CLI, real processes)', function () {
  this.timeout(60_000);
  before(() => ensureBuilt());

  it('deleted by the check: recreated with its original bytes; punt, not a conflict', () => {
    const r = run("const fs = require('fs'); if (fs.existsSync('src/a.js') && fs.readFileSync('src/a.js', 'utf8').includes('EDIT')) fs.unlinkSync('src/a.js');\nconsole.log('a is wrong'); process.exit(1);\n");
    try {
      assert.equal(r.out.stopReason, 'step-cap', r.out.detail);
      assert.equal(r.out.outcome, 'punt');
      assert.ok(existsSync(path.join(r.project, 'src/a.js')), 'recreated');
      assert.equal(readFileSync(path.join(r.project, 'src/a.js'), 'utf8'), ORIGINAL);
    } finally {
      r.cleanup();
    }
  });

  it('changed (not deleted) by the check: left as it is, and the stop says so', () => {
    const r = run("const fs = require('fs'); const a = fs.readFileSync('src/a.js', 'utf8'); if (a.includes('EDIT') && !a.includes('theirs')) fs.writeFileSync('src/a.js', 'theirs\\n');\nconsole.log('a is wrong'); process.exit(1);\n");
    try {
      assert.equal(r.out.stopReason, 'error', r.out.detail);
      assert.match(r.out.detail, /src\/a\.js changed outside the run; left as the user has it/);
      assert.equal(readFileSync(path.join(r.project, 'src/a.js'), 'utf8'), 'theirs\n');
    } finally {
      r.cleanup();
    }
  });
});
