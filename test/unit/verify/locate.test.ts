// Locations the runner prints none for: a test found by its title, a missing module by its import,
// the tests a killed hung run never finished. On captured real output of the real runners.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ParserId } from '../../../src/core/types';
import { parseOutput, timedOutFailures } from '../../../src/core/verify/parsers/index';
import { findTest, locateByTitle, testDeclarations } from '../../../src/core/verify/parsers/locate';
import { REPO } from '../../support/fixtures';

const FIXTURES = path.join(REPO, 'test', 'fixtures', 'verify');
const OUTPUTS = path.join(FIXTURES, 'outputs');
interface Capture { name: string; file: string; fixture: string; parser: ParserId; root: string; exitCode: number | null; timedOut?: boolean }
const captures = JSON.parse(readFileSync(path.join(OUTPUTS, 'index.json'), 'utf8')) as Capture[];

/** A captured output read as the verifier reads it, with the fixture's files standing in for the gone root. */
function parsed(name: string): ReturnType<typeof parseOutput> {
  const c = captures.find((x) => x.name === name)!;
  const dir = path.join(FIXTURES, c.fixture);
  const ctx = {
    check: 'test',
    root: c.root,
    cwd: c.root,
    exitCode: c.exitCode,
    readText: (rel: string): string | undefined => {
      try {
        return readFileSync(path.join(dir, rel), 'utf8');
      } catch {
        return undefined;
      }
    },
    listFiles: (): string[] => (readdirSync(dir, { recursive: true }) as string[]).map((f) => f.split(path.sep).join('/')),
  };
  const raw = readFileSync(path.join(OUTPUTS, c.file), 'utf8');
  return c.timedOut ? timedOutFailures(c.parser, raw, ctx, 'test did not finish within its 4 s timeout and was stopped') : parseOutput(c.parser, raw, ctx);
}

/** The line of a fixture's test file that holds `text`. */
function lineIn(fixture: string, text: string): number {
  return readFileSync(path.join(FIXTURES, fixture, 'test', 'sum.test.js'), 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;
}

describe('locations the runner does not print', () => {
  it('a mocha timeout (no stack) gets the line of its test, found by its title, in every reporter', () => {
    for (const name of ['mocha-spec', 'mocha-json', 'mocha-tap', 'shape-mocha-spec', 'shape-mocha-json', 'shape-mocha-tap']) {
      const t = parsed(name).find((f) => /Timeout of \d+ms exceeded/.test(f.message));
      assert.ok(t, name);
      const expected = name.startsWith('shape') ? ['test/sum.test.js', lineIn('shape-mocha', "it('settles within the limit'")] : ['test/queue.test.js', 24];
      assert.deepEqual([t.file, t.line], expected, `${name}: ${t.id}`);
    }
  });

  it('a file that cannot load gets the line importing the missing module', () => {
    const broken = parsed('vitest-json').find((f) => f.id === 'Test suite failed to run')!;
    assert.deepEqual([broken.file, broken.line], ['test/broken.test.js', 2]);
  });

  it('every parsed test failure of the captured runner outputs has a file and a line', () => {
    for (const c of captures.filter((x) => ['mocha', 'jest', 'vitest', 'node-test', 'tap'].includes(x.parser))) {
      for (const f of parsed(c.name)) assert.ok(f.file !== undefined && f.line !== undefined, `${c.name}: ${f.id} has no location`);
    }
  });

  it('a killed hung run: what failed before it and the test that never finished, from node:test (TAP and spec) and mocha', () => {
    for (const name of ['shape-node-test-hang-tap', 'shape-node-test-hang-spec', 'shape-mocha-hang-spec']) {
      const fs = parsed(name);
      const hung = fs[fs.length - 1]!;
      const fixture = captures.find((c) => c.name === name)!.fixture;
      assert.deepEqual([hung.file, hung.line, hung.message], ['test/sum.test.js', lineIn(fixture, "('waits for a reply that never comes'"), 'test did not finish within its 4 s timeout and was stopped; this test never finished'], name);
      assert.match(hung.id!, /^stuck( > | )waits for a reply that never comes$/);
      assert.equal(fs.length, name.startsWith('shape-node-test') ? 6 : 1, `${name}: ${fs.map((f) => f.id).join('; ')}`);
    }
  });

  it('a hung node:test file stopped a moment before node --test itself: the file\'s "test failed" is the stop, not a second failure', () => {
    // node --test saw its test file die of the SIGTERM and reported the file before it ended too.
    for (const reporter of ['tap', 'spec']) {
      const fs = parsed(`node-test-hang-stopped-${reporter}`);
      assert.deepEqual(fs, [{ check: 'test', file: 'test/hang.test.js', line: 4, column: 1, id: 'waits forever', message: 'test did not finish within its 4 s timeout and was stopped; this test never finished' }], reporter);
      // Without a test left unfinished in it, a file's own failure stands, named by its workspace path.
      const ctx = { check: 'test', root: '/tmp/fug-capture/hang', cwd: '/tmp/fug-capture/hang', exitCode: 1, readText: (): string => '', listFiles: (): string[] => [] };
      const raw = readFileSync(path.join(OUTPUTS, `node-test-hang-stopped-${reporter}.txt`), 'utf8');
      assert.deepEqual(timedOutFailures('node-test', raw, ctx, 'stopped').map((f) => [f.id, f.message]), [['test/hang.test.js', 'test failed'], ['timeout', 'stopped']], reporter);
    }
  });

  it('finds tests by title: nested suites, template and printf titles, the runner\'s separator', () => {
    const src = [
      "describe('outer', () => {",
      "  describe(\"inner\", () => {",
      "    it('plain', () => {});",
      '    for (const n of [1, 2]) {',
      '      it(`case ${n}`, () => {});',
      '    }',
      "    test.each([[1], [2]])('each %i', () => {});",
      '  });',
      "  it('plain', () => {});",
      '});',
      "test('top', () => {});",
    ].join('\n');
    const d = testDeclarations(src);
    assert.equal(findTest(d, 'outer inner plain')?.line, 3, 'mocha joins with spaces');
    assert.equal(findTest(d, 'outer > plain')?.line, 9, 'node:test and Vitest join with >');
    assert.equal(findTest(d, 'outer › inner › case 2')?.line, 5, 'Jest joins with ›');
    assert.equal(findTest(d, 'outer inner each 2')?.line, 7);
    assert.equal(findTest(d, 'top')?.line, 11);
    assert.equal(findTest(d, 'outer inner missing'), undefined);
  });

  // Issue 27, class 9: failures with no stack, or a position in compiled code, placed at the test's declaration.
  it('a mocha hook\'s failure at the test it ran for (or its suite); a position not in the source at the declaration', () => {
    const src = [
      "import assert from 'node:assert/strict';",
      '',
      "describe('Queue', () => {",
      '  beforeEach(async () => {});',
      "  describe('drain', () => {",
      "    it('empties it', () => {});",
      '  });',
      "  it('starts empty', () => {});",
      '});',
    ].join('\n');
    const ctx = { check: 't', root: '/nowhere', exitCode: 1, readText: (rel: string): string | undefined => (rel === 'test/q.spec.ts' ? src : undefined) };
    const at = (id: string, line?: number, column?: number): [number | undefined, number | undefined] => {
      const [f] = locateByTitle([{ check: 't', file: 'test/q.spec.ts', id, message: 'Error: Timeout of 300ms exceeded.', ...(line !== undefined ? { line } : {}), ...(column !== undefined ? { column } : {}) }], ctx);
      return [f!.line, f!.column];
    };
    assert.deepEqual(at('Queue "before each" hook for "starts empty"'), [8, 3]);
    assert.deepEqual(at('Queue drain "before each" hook: reset for "empties it"'), [6, 5], 'a named hook');
    assert.deepEqual(at('Queue drain "after all" hook in "drain"'), [5, 3], 'a hook of a suite: the suite');
    assert.deepEqual(at('Queue > starts empty', 1, 219), [8, 3], 'node:test under tsx: the compiled code\'s 1:219');
    assert.deepEqual(at('Queue > starts empty', 40, 1), [8, 3], 'past the end of the file');
    assert.deepEqual(at('Queue > starts empty', 1, 5), [8, 3], 'line 1 declares no test, the test is further down');
    assert.deepEqual(at('Queue > starts empty', 8, 30), [8, 30], 'a position in the source stays');
    assert.deepEqual(at('Queue > gone', 1, 219), [undefined, undefined], 'not in the source and no declaration: no line rather than a wrong one');
  });
});
