// A Vitest `test.projects` (or workspace) package prints its failures' paths relative to that
// package (`alpha  test/x.test.mjs`); gql.tada's were placed at a file that does not exist at the
// root. A failure's place is a file of the project: the one package folder holding the path.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import { REPO, copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

describe('Vitest projects: a failure printed relative to its project is placed in the project', function () {
  this.timeout(120000);
  let s: Scratch;
  beforeEach(() => {
    s = copyFixture('verify/vitest-project-paths');
  });
  afterEach(() => s.cleanup());

  const run = (): { out: string; code: number | null } => {
    const r = spawnSync(path.join(REPO, 'node_modules', '.bin', 'vitest'), ['run'], { cwd: s.project, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
    return { out: r.stdout + r.stderr, code: r.status };
  };

  it('at packages/a/test/x.test.mjs:4, with the real runner', () => {
    const { out, code } = run();
    assert.notEqual(code, 0, out);
    const f = parseOutput('vitest', out, { check: 'test', root: s.project, cwd: s.project, exitCode: code });
    assert.deepEqual(f.map((x) => `${x.file}:${x.line}`), ['packages/a/test/x.test.mjs:4'], out);
  });

  it('a path two packages hold is left as printed (no guess); one the root holds is the root\'s', () => {
    const { out, code } = run();
    mkdirSync(path.join(s.project, 'packages', 'b', 'test'), { recursive: true });
    writeFileSync(path.join(s.project, 'packages', 'b', 'package.json'), '{"name":"b","private":true}');
    writeFileSync(path.join(s.project, 'packages', 'b', 'test', 'x.test.mjs'), '');
    const f = parseOutput('vitest', out, { check: 'test', root: s.project, cwd: s.project, exitCode: code });
    assert.deepEqual(f.map((x) => x.file), ['test/x.test.mjs']);
    mkdirSync(path.join(s.project, 'test'), { recursive: true });
    writeFileSync(path.join(s.project, 'test', 'x.test.mjs'), '');
    const g = parseOutput('vitest', out, { check: 'test', root: s.project, cwd: s.project, exitCode: code });
    assert.deepEqual(g.map((x) => x.file), ['test/x.test.mjs']);
  });
});
