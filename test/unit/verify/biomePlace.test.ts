// Issue 37: a Biome check failure is placed at its file. Biome 1.x's GitHub reporter prints no line
// for a format-only difference, so the check re-runs with Biome's default reporter, whose headers
// name every file (read here on the real pinned Biome's output, and on Biome 1.8.3's as captured).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { biomeDefaultCommand, parseBiomeDefault, withDefaultReport } from '../../../src/core/verify/parsers/biomeDefault';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, copyFixture } from '../../support/fixtures';

const row = (f: { file?: string; line?: number; id?: string }): string => `${f.file}:${f.line ?? ''} ${f.id ?? ''}`;

describe('Biome failures placed at their files', function () {
  this.timeout(60000);

  it('reads the default reporter of the real Biome: its errors at their files, infos left out', () => {
    const s = copyFixture('verify/biome-format');
    try {
      const r = spawnSync(path.join(REPO, 'node_modules', '.bin', 'biome'), ['check', 'src'], { cwd: s.project, encoding: 'utf8' });
      assert.equal(r.status, 1, r.stdout + r.stderr);
      const f = parseBiomeDefault(r.stdout + r.stderr, { check: 'lint', root: s.project, cwd: s.project, exitCode: r.status });
      assert.deepEqual(f.map(row), ['src/label.js: format']);
      assert.match(f[0]!.message, /Formatter would have printed/);
    } finally {
      s.cleanup();
    }
  });

  it('Biome 1.8.3: a GitHub report with no line gives an unplaced failure; its default reporter places it', () => {
    const ctx = { check: 'check', root: '/ROOT', cwd: '/ROOT', exitCode: 1 };
    const github = parseOutput('biome', 'check ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━\n\n  × Some errors were emitted while running checks.\n', ctx);
    assert.ok(github.every((f) => f.file === undefined), 'the GitHub reporter named no file');
    const text = readFileSync(path.join(REPO, 'test', 'fixtures', 'verify', 'outputs', 'biome-1.8-default-format.txt'), 'utf8');
    assert.deepEqual(withDefaultReport(github, text, ctx).map(row), ['src/index.ts: format']);
    const lint = [{ check: 'check', file: 'src/a.ts', line: 2, id: 'lint/suspicious/noDebugger', message: 'x' }];
    assert.deepEqual(withDefaultReport(lint, text, ctx).map(row), ['src/a.ts:2 lint/suspicious/noDebugger', 'src/index.ts: format'], 'a lint error the GitHub reporter printed stays, the format error joins');
  });

  it('the verifier places every error Biome counts: one its GitHub reporter left out joins from the default reporter', async () => {
    // Biome 2's GitHub reporter leaves out the format error of a file that does not parse (its
    // default reporter lists it), as Biome 1's leaves out every format error.
    const s = copyFixture('verify/biome-format');
    try {
      rmSync(path.join(s.project, 'src', 'label.js'));
      writeFileSync(path.join(s.project, 'src', 'bad.js'), 'export const = ;\n');
      const v = new Verifier({ root: s.project, checks: [{ name: 'lint', command: 'biome format src --reporter=github', parser: 'biome' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 });
      const r = await v.verify(undefined, { previous: null });
      const rows = r.failures.map(row);
      assert.ok(rows.includes('src/bad.js: format'), rows.join('\n'));
      assert.ok(r.failures.every((f) => f.file === 'src/bad.js'), rows.join('\n'));
    } finally {
      s.cleanup();
    }
  });

  it('re-runs a GitHub-reporter command without it, and leaves any other alone', () => {
    assert.equal(biomeDefaultCommand('biome check --reporter=github'), 'biome check');
    assert.equal(biomeDefaultCommand('npx @biomejs/biome ci --reporter github src'), 'npx @biomejs/biome ci src');
    assert.equal(biomeDefaultCommand('biome check'), undefined);
  });
});
