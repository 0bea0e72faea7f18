import * as assert from 'node:assert/strict';
import { codeOf, isElision, isElisionIn, locate } from '../../../src/core/edit/match';
import type { OldLine } from '../../../src/core/edit/match';

const ctx = (t: string): OldLine => ({ text: t, removed: false });
const rm = (t: string): OldLine => ({ text: t, removed: true });

const FILE = ['function f() {', '  const a = 1;', '  const b = 2;', '  const c = 3;', '  return a + b + c;', '}', '', 'function g() {', '  return 0;', '}'];

describe('edit/match', () => {
  it('takes a code comment marker in a prose file (Markdown, text) for content, its own comments and bare words for elisions', () => {
    for (const rel of ['README.md', 'docs/guide.markdown', 'notes.txt', 'index.rst']) {
      for (const l of ['// ... other related functions ...', '# ... rest of the steps ...', '/* ... existing code ... */', '* ... more items']) assert.equal(isElisionIn(rel, l), false, `${rel}: ${l}`);
      for (const l of ['<!-- ... rest of the file ... -->', '... rest of the file unchanged ...', '...']) assert.equal(isElisionIn(rel, l), true, `${rel}: ${l}`);
    }
    for (const rel of ['src/a.ts', 'package.json', 'a.py']) assert.equal(isElisionIn(rel, '// ... other related functions ...'), true, rel);
    // A SEARCH quoting such a line in Markdown is located like any other text, not refused as an elision.
    const md = ['# Guide', '', '```ts', "import { a } from './a';", '// ... other related functions ...', '```', '', 'The end.'];
    const block = [ctx('```ts'), ctx("import { a } from './a';"), ctx('// ... other functions ...'), rm('```'), ctx(''), ctx('The end.')];
    const r = locate(md, block, { isElision: (l) => isElisionIn('README.md', l) });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.placement.start, 2);
    assert.ok(!locate(md, block).ok, 'in a code file the same SEARCH is an elision');
  });

  it('finds an exact block anywhere, whatever the hint says', () => {
    const r = locate(FILE, [ctx('function g() {'), rm('  return 0;'), ctx('}')], { hint: 0 });
    assert.ok(r.ok);
    assert.equal(r.placement.start, 7);
    assert.equal(r.placement.level, 'exact');
  });

  it('matches up to whitespace and reports the level', () => {
    const r = locate(FILE, [ctx('function g(){'), rm('return 0;  ')]);
    assert.ok(r.ok);
    assert.equal(r.placement.level, 'whitespace');
    assert.deepEqual(r.placement.map, [7, 8]);
  });

  it('accepts context differing in comments or leaving file lines out, within the fuzz bound, and refuses beyond it', () => {
    // A comment the file lacks, and a comment line the file does not have: two differences.
    const two = [ctx('function f() { // entry'), ctx('  const a = 1;'), ctx('  // b follows'), ctx('  const b = 2;'), rm('  const c = 3;'), ctx('  return a + b + c;'), ctx('}'), ctx(''), ctx('function g() {')];
    const ok = locate(FILE, two);
    assert.ok(ok.ok, JSON.stringify(ok));
    assert.equal(ok.placement.level, 'fuzzy');
    assert.equal(ok.placement.cost, 2);
    assert.equal(ok.placement.map[4], 3);
    const three = [ctx('function f() { // entry'), ctx('  const a = 1; // one'), ctx('  // b follows'), ctx('  const b = 2;'), rm('  const c = 3;'), ctx('  return a + b + c;'), ctx('}'), ctx(''), ctx('function g() {')];
    const no = locate(FILE, three);
    assert.equal(no.ok, false);
    assert.ok(!no.ok && no.kind === 'not-found');
    assert.match(!no.ok && no.kind === 'not-found' ? no.closest!.why : '', /3 of its 9 old lines differ from the file there \(at most 2 may\)/);
    assert.equal(locate(FILE, two, { fuzz: 1 }).ok, false, 'the bound is configurable');
  });

  it('refuses a context line whose code differs from the file, even within the fuzz bound', () => {
    // Once accepted as fuzz: the model believes `b` is 20 and edits around it.
    const block = [ctx('function f() {'), ctx('  const a = 1;'), ctx('  const b = 20;'), rm('  const c = 3;'), ctx('  return a + b + c;'), ctx('}')];
    const r = locate(FILE, block);
    assert.ok(!r.ok && r.kind === 'not-found', JSON.stringify(r));
    assert.match(r.closest!.why, /line 3 there is `const b = 2;` where the hunk's context line is `const b = 20;` \(context lines must match the file, up to whitespace and comments\)/);
    const invented = [ctx('function f() {'), ctx('  const a = 1;'), ctx('  const z = 0;'), ctx('  const b = 2;'), rm('  const c = 3;'), ctx('  return a + b + c;')];
    const r2 = locate(FILE, invented);
    assert.ok(!r2.ok && r2.kind === 'not-found', JSON.stringify(r2));
    assert.match(r2.closest!.why, /context line `const z = 0;` is not in the file there/);
    assert.equal(codeOf('  return x; // was y'), 'returnx;');
    assert.equal(codeOf('fetch("http://a.b/c");'), 'fetch("http://a.b/c");');
  });

  it('never lets fuzz stand in for a removed line', () => {
    const r = locate(FILE, [ctx('function f() {'), ctx('  const a = 1;'), rm('  const b = 20;'), ctx('  const c = 3;'), ctx('  return a + b + c;')]);
    assert.ok(!r.ok && r.kind === 'not-found');
    assert.match(r.closest!.why, /removes `const b = 20;` but line 3 there is `const b = 2;`/);
  });

  it('refuses a tolerant match whose region holds a file line the hunk does not quote, naming it', () => {
    // The hunk leaves out `const b = 2;`: a REPLACE adding it back would duplicate it.
    const r = locate(FILE, [ctx('function f() {'), ctx('  const a = 1;'), ctx('  const c = 3;'), rm('  return a + b + c;'), ctx('}'), ctx(''), ctx('function g() {')]);
    assert.ok(!r.ok && r.kind === 'not-found', JSON.stringify(r));
    assert.deepEqual([r.closest!.start, r.closest!.end], [0, 8]);
    assert.match(r.closest!.why, /line 3 there, `const b = 2;`, is not quoted by the edit: applying it around a line it does not quote could delete or duplicate that line/);
    // A blank line the hunk left out is spacing, not content: still placed.
    const file = ['function f() {', '  const a = 1;', '', '  const c = 3;', '  return a + c;', '}'];
    const ok = locate(file, [ctx('function f() {'), ctx('  const a = 1;'), ctx('  const c = 3;'), rm('  return a + c;'), ctx('}'), ctx('')]);
    assert.ok(ok.ok, JSON.stringify(ok));
    assert.deepEqual(ok.placement.map, [0, 1, 3, 4, 5, -1]);
  });

  it('refuses two equally good places unless the hint names one exactly', () => {
    const file = ['a', 'x', 'b', 'a', 'x', 'b'];
    const block = [ctx('a'), rm('x'), ctx('b')];
    const r = locate(file, block);
    assert.ok(!r.ok && r.kind === 'ambiguous');
    assert.deepEqual(!r.ok && r.kind === 'ambiguous' ? r.starts : [], [0, 3]);
    assert.equal(locate(file, block, { hint: 2 }).ok, false, 'a hint near but not at a match does not choose');
    const byHint = locate(file, block, { hint: 3 });
    assert.ok(byHint.ok && byHint.placement.start === 3);
  });

  it('recognizes elisions but not spreads or real code', () => {
    for (const l of ['...', '  // ...', '/* ... */', '# ... existing code ...', '// ... rest of the function unchanged', '  … ', '... rest of file ...', '<!-- ... -->']) assert.ok(isElision(l), l);
    for (const l of ['  ...rest,', 'foo(...args);', 'const x = [...a, ...b];', '// load more items', 'return "...";', '...otherProps']) assert.ok(!isElision(l), l);
  });
});
