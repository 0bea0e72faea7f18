// A mocha check whose command names a folder (`mocha test`), on a real project run by the real
// mocha: mocha runs the files directly in that folder (not its subfolders unless --recursive), so a
// step whose affected files include one deeper runs the command in full, saying which, instead of a
// narrowed run that would run a test the command never runs.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { VerifyResult } from '../../../src/core/types';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { scratchFiles } from '../../support/scratchFiles';

describe('staged tests: a mocha command naming a folder', function () {
  this.timeout(240000);
  let s: Scratch;
  let v: Verifier;
  const { file, ran, edit } = scratchFiles(() => s.project);
  const ids = (r: VerifyResult): string[] => r.failures.map((f) => f.id ?? '').sort();

  beforeEach(() => {
    s = copyFixture('staged/mocha');
    // `mocha test` with no spec of its config: test/*.js, and a test in a subfolder it never runs (failing whenever it runs).
    writeFileSync(file('.mocharc.json'), JSON.stringify({ timeout: 2000 }));
    mkdirSync(file('test/sub'));
    writeFileSync(file('test/sub/deep.test.js'), "const assert = require('node:assert/strict');\nconst { ran } = require('../../support/ran');\nconst { shout } = require('../../src/text');\n\nran('deep');\nit('shouts deep', () => {\n  assert.equal(shout('hi'), 'never');\n});\n");
    const pkg = JSON.parse(readFileSync(file('package.json'), 'utf8')) as { scripts: Record<string, string> };
    pkg.scripts.test = 'mocha test';
    writeFileSync(file('package.json'), JSON.stringify(pkg, null, 2));
    v = new Verifier({ root: s.project, checks: [{ name: 'test', command: 'npm test --silent' }], parallel: false, outputLimitKb: 256, flakyReruns: 1, staged: true, storageDir: s.storage });
  });
  afterEach(async () => {
    await v.release();
    s.cleanup();
  });

  const greenStart = async (): Promise<VerifyResult> => {
    edit('src/math.js', 'a - b', 'a + b');
    const v0 = await v.verify(undefined, { previous: null });
    assert.equal(v0.green, true, v0.checks[0]!.output);
    assert.deepEqual(ran().sort(), ['flaky', 'math', 'text'], 'mocha test: not test/sub');
    return v0;
  };

  it('a step whose affected files include one in a subfolder runs the command in full, saying which file', async () => {
    const v0 = await greenStart();

    edit('src/text.js', "+ '!'", "+ '?'");
    const v1 = await v.verify(undefined, { previous: v0, changed: ['src/text.js'] });
    const c = v1.checks[0]!;
    assert.equal(c.mode, 'full', c.stagedNote);
    assert.match(c.stagedNote ?? '', /test\/sub\/deep\.test\.js lies outside what the command runs \(test\)/);
    assert.deepEqual(ids(v1), ['shout shouts'], "the command's own failure: the subfolder's test is none of them");
    assert.ok(!ran().includes('deep'), 'test/sub never ran');
  });

  it('a step whose affected files mocha runs for the command is narrowed to them', async () => {
    const v0 = await greenStart();

    edit('src/math.js', 'a + b', 'a + b + 1');
    const v1 = await v.verify(undefined, { previous: v0, changed: ['src/math.js'] });
    assert.equal(v1.checks[0]!.mode, 'targeted', v1.checks[0]!.stagedNote);
    assert.deepEqual(ids(v1), ['add adds']);
    assert.deepEqual([...new Set(ran())], ['math']);

    // A test file added since mocha listed the command's files: listed again, and run.
    writeFileSync(file('test/added.test.js'), "const assert = require('node:assert/strict');\nconst { ran } = require('../support/ran');\nconst { add } = require('../src/math');\n\nran('added');\nit('adds again', () => {\n  assert.equal(add(1, 1), 2);\n});\n");
    edit('src/math.js', 'a + b + 1', 'a + b + 2');
    const v2 = await v.verify(undefined, { previous: v1, changed: ['src/math.js', 'test/added.test.js'] });
    assert.equal(v2.checks[0]!.mode, 'targeted', v2.checks[0]!.stagedNote);
    assert.deepEqual(ids(v2), ['add adds', 'adds again']);
    assert.deepEqual([...new Set(ran())].sort(), ['added', 'math']);
  });
});
