// No "(s)" plural in what the extension says to a person (issue 40): a sentence counts "1 failure",
// "2 files". Scans every source file of the extension and the panel, as the class of the defect is
// any new message written the lazy way.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { plural } from '../../../src/vscode/common/chatWords';

const REPO = path.resolve(__dirname, '..', '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : /\.ts$/.test(n) ? [p] : [];
  });
}

describe('plurals in what a person reads', () => {
  it('no word(s) in any string of src/vscode or media', () => {
    const found: string[] = [];
    for (const file of [...sources(path.join(REPO, 'src', 'vscode')), ...sources(path.join(REPO, 'media'))]) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        const code = line.replace(/^\s*(\/\/|\*|\/\*).*$/, '').replace(/\s\/\/ .*$/, '');
        // A counted noun(s) in text (a call f(s) is code, not a sentence).
        if (/\b(failure|file|check|time|step|test|error|problem|token|change|line|hunk|edit|model|folder|run|stop|warning)\(s\)/i.test(code)) found.push(`${path.relative(REPO, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    assert.deepEqual(found, []);
  });

  it('plural() counts as a person does', () => {
    assert.equal(plural(1, 'failure'), '1 failure');
    assert.equal(plural(0, 'file'), '0 files');
    assert.equal(plural(2, 'time'), '2 times');
  });
});
