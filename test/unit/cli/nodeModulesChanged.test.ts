// node_modules is among what defines the checks (README): an install in another terminal during a
// step's check (npm rewrites node_modules/.package-lock.json; the runner binary changes) stops the
// run with `critic-stop` instead of ending green on tools step 0 never ran (issue 29). A real CLI
// process, real checks, real files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, ensureBuilt } from '../../support/cli';
import { tempTree } from '../../support/fixtures';

const REPLY = 'STATUS: done\nCONFIDENCE: 0.9\nPOSTMORTEM: x\n\n```diff\n--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1 @@\n-module.exports = 1;\n+module.exports = 3; // EDIT\n```\n';

function runWith(files: Record<string, string>, check: string): { stopReason: string; outcome: string; detail: string } {
  const t = tempTree({ 'project/src/a.js': 'module.exports = 1;\n', ...files }, 'fug-nm-');
  try {
    const project = path.join(t.dir, 'project');
    if (files['project/node_modules/fake-runner/bin.js']) {
      chmodSync(path.join(project, 'node_modules/fake-runner/bin.js'), 0o755);
      symlinkSync('../fake-runner/bin.js', path.join(project, 'node_modules/.bin/fake-runner'));
    }
    const replay = path.join(t.dir, 'replay.json');
    writeFileSync(replay, JSON.stringify({ responses: [{ text: REPLY, usage: { input: 1, output: 1 } }] }));
    const r = spawnSync(process.execPath, [CLI, 'run', '--cwd', project, '--model', `replay:${replay}`, '--check', `c=${check}`, '--max-steps', '1', '--storage', path.join(t.dir, 'storage'), '--json'], { encoding: 'utf8', timeout: 100_000 });
    return JSON.parse(r.stdout) as { stopReason: string; outcome: string; detail: string };
  } finally {
    t.cleanup();
  }
}

/** Passes once the edit is in; `install` runs first at that point (the other terminal's npm install). */
const checkThat = (install: string): string =>
  ["const fs = require('fs');", "if (!fs.readFileSync('src/a.js', 'utf8').includes('EDIT')) { console.log('a is 1, want 3'); process.exit(1); }", install, 'process.exit(0);'].join('\n');

describe('node_modules replaced during a step stops the run (CLI, real processes)', function () {
  this.timeout(120_000);
  before(() => ensureBuilt());

  it('npm\'s node_modules/.package-lock.json rewritten during the check: critic-stop, not green', () => {
    const out = runWith(
      { 'project/node_modules/.package-lock.json': '{"lockfileVersion":3,"packages":{}}\n', 'project/c.cjs': checkThat("fs.writeFileSync('node_modules/.package-lock.json', '{\"lockfileVersion\":3,\"packages\":{\"node_modules/x\":{}}}\\n');") },
      'node c.cjs',
    );
    assert.equal(out.stopReason, 'critic-stop', out.detail);
    assert.match(out.detail, /node_modules\/\.package-lock\.json/);
  });

  it('the runner binary the check starts from node_modules/.bin rewritten during the check: critic-stop', () => {
    const runner = "#!/usr/bin/env node\nconst fs = require('fs');\nif (!fs.readFileSync('src/a.js', 'utf8').includes('EDIT')) { console.log('a is 1, want 3'); process.exit(1); }\nfs.appendFileSync('node_modules/fake-runner/bin.js', '// replaced\\n');\n";
    const out = runWith({ 'project/node_modules/fake-runner/bin.js': runner, 'project/node_modules/.bin/.keep': '' }, 'fake-runner');
    assert.equal(out.stopReason, 'critic-stop', out.detail);
    assert.match(out.detail, /node_modules\/fake-runner\/bin\.js/);
  });

  it('a package folder replaced during the check (no marker rewritten): critic-stop naming it', () => {
    const replace = "fs.rmSync('node_modules/dep', { recursive: true }); fs.mkdirSync('node_modules/dep'); fs.writeFileSync('node_modules/dep/package.json', '{\"name\":\"dep\",\"version\":\"1.0.0\"}'); fs.writeFileSync('node_modules/dep/index.js', 'module.exports = () => true;');";
    const out = runWith(
      { 'project/node_modules/dep/package.json': '{"name":"dep","version":"1.0.0"}', 'project/node_modules/dep/index.js': 'module.exports = () => false;', 'project/c.cjs': checkThat(replace) },
      'node c.cjs',
    );
    assert.equal(out.stopReason, 'critic-stop', out.detail);
    assert.match(out.detail, /node_modules\/dep\//);
  });

  it('a scoped package added during the check: critic-stop naming the listing', () => {
    const add = "fs.mkdirSync('node_modules/@s/new', { recursive: true }); fs.writeFileSync('node_modules/@s/new/package.json', '{}');";
    const out = runWith({ 'project/node_modules/dep/package.json': '{}', 'project/c.cjs': checkThat(add) }, 'node c.cjs');
    assert.equal(out.stopReason, 'critic-stop', out.detail);
    assert.match(out.detail, /node_modules\/[;,]/);
  });

  it('a tool writing its cache inside node_modules during the check is no install: green', () => {
    const cache = "fs.mkdirSync('node_modules/.cache/x', { recursive: true }); fs.writeFileSync('node_modules/.cache/x/a', '1'); fs.mkdirSync('node_modules/dep/.cache', { recursive: true }); fs.writeFileSync('node_modules/dep/.cache/b', '1');";
    const out = runWith({ 'project/node_modules/dep/package.json': '{}', 'project/c.cjs': checkThat(cache) }, 'node c.cjs');
    assert.equal(out.stopReason, 'green', out.detail);
  });

  it('nothing installed during the run: green as before', () => {
    const out = runWith({ 'project/node_modules/.package-lock.json': '{"lockfileVersion":3}\n', 'project/c.cjs': checkThat('') }, 'node c.cjs');
    assert.equal(out.stopReason, 'green', out.detail);
  });
});
