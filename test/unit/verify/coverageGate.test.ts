// A coverage gate's failure placed where the coverage is missing (issue 37, class Q): c8 `--100`
// over node:test, and Jest's `coverageThreshold`, each file below the threshold one failure at its
// first uncovered line with the uncovered lines in its message; the same identity run after run;
// `node --test` named among a chain's tools so a later tool (`tsd`) is never blamed. Real c8, node:test, Jest.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { VerifyResult } from '../../../src/core/types';
import { commandTools } from '../../../src/core/verify/infer';
import { Verifier } from '../../../src/core/verify/verifier';

const UNCOVERED = "exports.f = (x) => {\n  if (x === 'never') {\n    return 0;\n  }\n  return 1;\n};\n";
const COVERED = 'exports.g = (x) => x + 1;\n';

describe('a coverage gate placed at the files it names', function () {
  this.timeout(180_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-covplace-'));
    mkdirSync(path.join(dir, 'lib', 'deep'), { recursive: true });
    mkdirSync(path.join(dir, 'test'));
    writeFileSync(path.join(dir, 'index.js'), UNCOVERED);
    writeFileSync(path.join(dir, 'lib', 'g.js'), COVERED);
    writeFileSync(path.join(dir, 'lib', 'deep', 'h.js'), UNCOVERED.replace('exports.f', 'exports.h'));
    writeFileSync(
      path.join(dir, 'test', 'f.test.js'),
      "const test = require('node:test');\nconst assert = require('node:assert');\nconst { f } = require('../index.js');\nconst { g } = require('../lib/g.js');\nconst { h } = require('../lib/deep/h.js');\ntest('f', () => { assert.equal(f(1), 1); assert.equal(g(1), 2); assert.equal(h(1), 1); });\n",
    );
    symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const placed = (r: VerifyResult): string[] => r.failures.map((f) => `${f.file ?? '?'}:${f.line ?? ''} ${f.id} ${f.message}`).sort();

  it('c8 --100 over node --test: one failure per file under the threshold, at its uncovered lines, never the chain\'s next tool', async () => {
    // fastify-cors's shape: `unit: c8 --100 node --test` then `types: tsd`; every test passes.
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'covplace', private: true, scripts: { test: 'npm run unit && npm run types', unit: 'c8 --100 node --test', types: 'tsd' } }));
    assert.deepEqual(commandTools('npm test', dir), ['node --test', 'tsd']);
    const verify = (): Promise<VerifyResult> => new Verifier({ root: dir, checks: [{ name: 'test', command: 'npm test --silent' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
    const r = await verify();
    assert.equal(r.green, false, r.checks[0]!.output);
    const lines = /^coverage below the threshold: lines 66.66% \(threshold 100%\), branches 66.66% \(threshold 100%\), statements 66.66% \(threshold 100%\)/;
    assert.deepEqual(
      r.failures.map((f) => `${f.file}:${f.line} ${f.id}`).sort(),
      ['index.js:3 coverage', 'lib/deep/h.js:3 coverage'],
      JSON.stringify(r.failures),
    );
    for (const f of r.failures) {
      assert.match(f.message, lines);
      assert.match(f.message, /; lines not covered: 3-4$/);
      assert.doesNotMatch(f.message, /tsd/);
    }
    // The same bytes, the same identity.
    assert.equal((await verify()).failureHash, r.failureHash);
    assert.deepEqual(placed(await verify()), placed(r));
  });

  it('Jest coverageThreshold: the files its table names under the threshold', async () => {
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'covplace-jest', private: true, scripts: { test: 'jest' }, jest: { collectCoverage: true, coverageReporters: ['text'], coverageThreshold: { global: { lines: 100 } }, testMatch: ['**/test/*.jest.js'] } }),
    );
    writeFileSync(path.join(dir, 'test', 'f.jest.js'), "const { f } = require('../index.js');\nconst { g } = require('../lib/g.js');\ntest('f', () => { expect(f(1)).toBe(1); expect(g(1)).toBe(2); });\n");
    const r = await new Verifier({ root: dir, checks: [{ name: 'test', command: 'npm test --silent' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
    assert.equal(r.green, false, r.checks[0]!.output);
    assert.deepEqual(r.failures.map((f) => `${f.file}:${f.line} ${f.id}`), ['index.js:3 coverage'], JSON.stringify(r.failures) + r.checks[0]!.output);
    assert.match(r.failures[0]!.message, /^coverage below the threshold: lines 75% \(threshold 100%\); lines not covered: 3$/);
  });
});
