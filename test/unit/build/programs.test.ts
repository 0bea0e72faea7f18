// The programs a check runs inside the project's own tools (the Jest runner, the mocha hooks, the
// Vitest reporter, the warm tsc worker) ship as files, not as strings in the bundles: the build
// copies them beside the bundles, a bundle finds them beside itself, the sources (tsx) find them
// beside programFile.ts, and the .vsix holds them (test/unit/vscode/package.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { nodeTargets, PROGRAMS } from '../../../esbuild.mjs';
import { PROGRAM_NAMES, programFile } from '../../../src/core/verify/staged/programFile';
import { REPO } from '../../support/fixtures';

describe('bundles: the programs the checks run, shipped as files', function () {
  this.timeout(120000);

  it('names every file of the programs folder, and finds each beside the sources', () => {
    assert.deepEqual(readdirSync(path.join(REPO, PROGRAMS.from)).sort(), [...PROGRAM_NAMES].sort());
    for (const name of PROGRAM_NAMES) assert.equal(programFile(name), path.join(REPO, PROGRAMS.from, name));
  });

  it('are in dist/programs after the build, byte for byte', () => {
    // The mocha global setup ran the build (scripts/ensureBuilt.mjs: `node esbuild.mjs`, as `npm run build`).
    for (const name of PROGRAM_NAMES) {
      const shipped = path.join(REPO, 'dist', PROGRAMS.to, name);
      assert.ok(readFileSync(shipped).equals(readFileSync(path.join(REPO, PROGRAMS.from, name))), `${shipped} is the source's copy`);
    }
  });

  it('a bundle built with the real options finds them beside itself', async () => {
    // Every Node bundle may start a program (the engine, the CLI's commands, the MCP server).
    for (const t of nodeTargets()) assert.equal(t.define?.['import.meta.dirname'], '__dirname', `${t.outfile} defines import.meta.dirname`);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-programs-'));
    try {
      const entry = path.join(dir, 'entry.ts');
      writeFileSync(entry, `import { PROGRAM_NAMES, programFile } from ${JSON.stringify(path.join(REPO, 'src', 'core', 'verify', 'staged', 'programFile.ts'))};\nprocess.stdout.write(JSON.stringify(PROGRAM_NAMES.map(programFile)));\n`);
      const engine = nodeTargets().find((t) => t.outfile === 'dist/engine.js')!;
      const outfile = path.join(dir, 'engine.js');
      const r = await esbuild.build({ ...engine, entryPoints: [entry], outfile, plugins: [], sourcemap: false, logLevel: 'silent', absWorkingDir: REPO });
      assert.deepEqual(r.warnings, [], 'no import.meta left empty in the CommonJS bundle');
      writeFileSync(path.join(dir, 'package.json'), '{ "type": "commonjs" }\n');
      const run = spawnSync(process.execPath, [outfile], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), PROGRAM_NAMES.map((n) => path.join(dir, 'programs', n)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
