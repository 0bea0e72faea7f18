// The failure identity: equal where only noise differs, different where a failure changed.
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Failure, VerifyResult } from '../../../src/core/types';
import { GREEN_HASH, failureIdentity, normalizeMessage } from '../../../src/core/verify/identity';
import { parserForCommand } from '../../../src/core/verify/infer';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import { parseGeneric } from '../../../src/core/verify/parsers/generic';
import { checkEnv, runCommand } from '../../../src/core/verify/runner';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, copyFixture, tempTree } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

describe('normalizeMessage', () => {
  const root = '/home/ana/projects/shop';
  const n = (m: string): string => normalizeMessage(m, { root });

  it('removes the workspace root, file:// URLs and other machines\' absolute paths', () => {
    assert.equal(n(`Cannot find module '${root}/src/x.js' from '${root}/test/a.test.js'`), "Cannot find module 'src/x.js' from 'test/a.test.js'");
    assert.equal(n(`at file://${root}/src/x.js`), normalizeMessage('at file:///other/place/shop/src/x.js', { root: '/other/place/shop' }));
    assert.equal(n("Cannot load '/usr/lib/node_modules/tsx/dist/loader.mjs'"), n("Cannot load '/Users/bo/.nvm/v20/lib/node_modules/tsx/dist/loader.mjs'"));
    assert.equal(n('C:\\Users\\bo\\shop\\src\\x.js is missing'), n('/home/ana/elsewhere/src/x.js is missing'));
  });

  it('removes temp-dir names, line and column numbers, durations and timestamps', () => {
    const tmp = os.tmpdir();
    assert.equal(n(`wrote ${tmp}/fug-aB3xYz/out.txt`), n(`wrote ${tmp}/fug-Q9zzP1/out.txt`));
    assert.equal(n('src/a.ts:12:5 bad'), n('src/a.ts:40:1 bad'));
    // Vite bundles a config to a file named anew each run: a broken config fails the same way every time.
    assert.equal(n(`SyntaxError: Unexpected token in ${root}/node_modules/.vite-temp/vitest.config.ts.timestamp-1764405312345-8a3f1c2d9e7b.mjs`), n(`SyntaxError: Unexpected token in ${root}/node_modules/.vite-temp/vitest.config.ts.timestamp-1764405399999-4fe01.mjs`));
    assert.equal(n(`failed to load config from ${root}/vite.config.ts.timestamp-1764405312345-8a3f1c2d9e7b.mjs`), n(`failed to load config from ${root}/vite.config.ts.timestamp-1764405400000-c0ffee12.mjs`));
    assert.equal(n('src/a.ts(12,5): bad'), n('src/a.ts(3,9): bad'));
    assert.equal(n('Timeout of 2000ms exceeded (12.3 s) after 4s'), n('Timeout of 300ms exceeded (0.5 s) after 1s'));
    assert.equal(n('at 2026-11-22T02:34:33.879Z and 02:35:09 epoch 1795314893150'), n('at 2025-01-02T10:00:00Z and 23:59:59 epoch 1700000000000'));
    assert.equal(n('duration_ms: 2.262743'), n('duration_ms: 0.1'));
    // node:test's TAP and spec summaries, and its stack lines without `at` (TAP YAML `stack: |-`).
    assert.equal(n('# duration_ms 74.947976'), n('# duration_ms 80.1'));
    assert.equal(n('ℹ duration_ms 74.947976'), n('ℹ duration_ms 3'));
    assert.equal(n('boom\n    TestContext.<anonymous> (file:///tmp/cnt/test/stock.test.js:19:10)\n    async Test.processPendingSubtests (node:internal/test_runner/test:526:7)'), 'boom');
    assert.equal(n('Duration 1.53s (transform 30ms, setup 0ms)'), n('Duration 812ms (transform 41ms, setup 1ms)'));
    assert.equal(n('Time: 1.234 s, estimated 2 s'), n('Time: 0.5 s, estimated 1 s'));
    assert.equal(n('took 1m 3s'), n('took 2m 15.4s'));
    assert.equal(n('# time=12.3ms'), n('# time=401ms'));
    assert.equal(n('  Duration:  3.40ms'), n('  Duration:  12ms'));
    // A file:// URL is a path with %-escapes; node:test's frames without `at` or parentheses.
    assert.equal(n(`at file://${root}/my%20dir/x.js`), n(`at ${root}/my dir/x.js`));
    assert.equal(n('boom\n    node:internal/test_runner/harness:255:12\n    /usr/lib/node/x.js:1:2'), 'boom');
  });

  it('removes addresses, UUIDs, seeds, PIDs, ports, ANSI and stack frames', () => {
    assert.equal(n('object at 0x7ffde4a0c3b8'), n('object at 0x55d0c1a2b3c4'));
    assert.equal(n('run 123e4567-e89b-12d3-a456-426614174000'), n('run 9b2f0c1e-0000-4000-8000-000000000001'));
    assert.equal(n('Randomized with seed 48213'), n('Randomized with seed 1'));
    assert.equal(n('worker pid 4412 died'), n('worker pid 99 died'));
    assert.equal(n('ECONNREFUSED 127.0.0.1:53122'), n('ECONNREFUSED 127.0.0.1:40001'));
    assert.equal(n('\u001b[31mexpected\u001b[39m 3'), 'expected 3');
    assert.equal(n('boom\n    at f (src/a.js:3:1)\n    at node:internal/x:1:1\n ❯ test/a.test.js:4:2'), 'boom');
  });

  it('removes values drawn from a clock or a random source: BigInts, integers past a double, long hex runs', () => {
    // uuid's v7 tests: `assert.strictEqual` on 37-digit BigInts made from the clock, another each run.
    assert.equal(n('Expected value to strictly be equal to:\n  2171176712567518384416920363776199330n\nReceived:\n  2171176712567480605485057406614489762n'), n('Expected value to strictly be equal to:\n  2171174512719054354625424535485665191n\nReceived:\n  2171174626498316793475862088790913355n'));
    assert.equal(n('hrtime 1234567890123456789 past the deadline'), n('hrtime 9876543210987654321 past the deadline'));
    assert.equal(n("expected 'a3f9c2d4e5b60718293a4b5c6d7e8f90' to equal 'x'"), n("expected '0b1c2d3e4f5a69788796a5b4c3d2e1f0' to equal 'x'"));
    // What an assertion about a number says stays: ordinary integers, short BigInts, words of hex letters.
    assert.notEqual(n('expected 123456789012345 to be 1'), n('expected 123456789012346 to be 1'));
    assert.notEqual(n('Expected: 42n\nReceived: 43n'), n('Expected: 42n\nReceived: 44n'));
    assert.notEqual(n("'deadbeefcafebabe' is not 'x'"), n("'facadebeefcafeba' is not 'x'"));
  });

  it('keeps what makes a failure this failure', () => {
    assert.notEqual(n('Expected: 6\nReceived: 14'), n('Expected: 6\nReceived: 15'));
    assert.notEqual(n("'missingGlobal' is not defined"), n("'otherGlobal' is not defined"));
    assert.notEqual(n("Type 'string' is not assignable"), n("Type 'boolean' is not assignable"));
    assert.notEqual(n('7 !== 10'), n('14 !== 10'));
  });
});

describe('failureIdentity', () => {
  const f = (message: string, extra: Partial<Failure> = {}): Failure => ({ check: 'test', file: 'a.js', id: 'adds', message, ...extra });
  const ctx = { root: '/w' };

  it('is the same in any order, and the green hash for no failures', () => {
    assert.equal(failureIdentity([f('x', { id: 'a' }), f('y', { id: 'b' })], ctx), failureIdentity([f('y', { id: 'b' }), f('x', { id: 'a' })], ctx));
    assert.equal(failureIdentity([], ctx), GREEN_HASH);
  });

  it('counts repeats: fixing one of two identical errors is a different state', () => {
    const e = (line: number): Failure => f("Type 'string' is not assignable", { id: 'TS2322', line });
    assert.notEqual(failureIdentity([e(3), e(9)], ctx), failureIdentity([e(3)], ctx));
    assert.equal(failureIdentity([e(3), e(9)], ctx), failureIdentity([e(4), e(12)], ctx));
  });

  it('ignores the order of lines in a generic failure (tools interleave in parallel)', () => {
    const g = (m: string): Failure => ({ check: 'build', id: 'exit', message: m });
    assert.equal(failureIdentity([g('a failed\nb failed')], ctx), failureIdentity([g('b failed\na failed')], ctx));
  });
});

// The acceptance: real tools on real fixture projects, from two absolute paths, colour on and off.
interface Subject {
  fixture: string;
  command: string;
  /** With colour forced on, the command that shows it (tsc only colours with --pretty). */
  colourCommand?: string;
  fix: [file: string, from: string, to: string];
  changeActual: [file: string, from: string, to: string];
}

const subjects: Subject[] = [
  {
    fixture: 'tsc',
    command: 'tsc --noEmit -p .',
    colourCommand: 'tsc --noEmit -p . --pretty',
    fix: ['src/cart.ts', "padStart('8')", 'padStart(8)'],
    changeActual: ['src/price.ts', "shipping: number = 'free'", 'shipping: number = true'],
  },
  { fixture: 'eslint', command: 'eslint .', fix: ['src/inventory.js', '  const unused = 42;\n', ''], changeActual: ['src/inventory.js', 'missingGlobal', 'otherGlobal'] },
  { fixture: 'mocha', command: 'mocha', fix: ['src/queue.js', 'this.items[0].value', 'this.items[0]'], changeActual: ['src/queue.js', 'return this.items.pop();', "return this.items.pop() + '!';"] },
  { fixture: 'jest', command: 'jest', fix: ['src/wallet.js', "USD: '$' }", "USD: '$', GBP: '£' }"], changeActual: ['src/wallet.js', 'Math.abs(e.amount), 0)', 'Math.abs(e.amount), 1)'] },
  { fixture: 'vitest', command: 'vitest run', fix: ['test/temperature.test.js', 'setTimeout(resolve, 1000)', 'setTimeout(resolve, 10)'], changeActual: ['src/temperature.js', 'return (celsius * 9) / 5;', 'return (celsius * 9) / 5 + 1;'] },
  { fixture: 'node-test', command: 'node --test', fix: ['src/shop.js', 'if (percent > 100) throw new RangeError(`discount of ${percent}% is more than the price`);', 'if (percent > 100) return 0;'], changeActual: ['src/shop.js', 'sum + l.price, 0)', 'sum + l.price * 2, 0)'] },
];

function edit(project: string, [file, from, to]: [string, string, string]): void {
  const p = path.join(project, file);
  const text = readFileSync(p, 'utf8');
  assert.ok(text.includes(from), `${file} holds ${from}`);
  writeFileSync(p, text.replace(from, () => to));
}

describe('failure identity on real tools, across paths and colour', function () {
  this.timeout(600000);

  for (const s of subjects) {
    it(`${s.fixture}: same identity from two paths with colour on and off; a fix or a changed actual value changes it`, async () => {
      const a = copyFixture(`verify/${s.fixture}`);
      const b = copyFixture(`verify/${s.fixture}`);
      const scratch: Scratch[] = [a, b];
      try {
        const verify = async (where: Scratch, colour: boolean): Promise<{ hash: string; count: number; green: boolean }> => {
          const v = new Verifier({
            root: where.project,
            checks: [{ name: s.fixture, command: colour ? (s.colourCommand ?? s.command) : s.command }],
            parallel: false,
            outputLimitKb: 256,
            flakyReruns: 0,
            ...(colour ? { env: { FORCE_COLOR: '1', NO_COLOR: undefined } } : {}),
          });
          const r = await v.verify();
          return { hash: r.failureHash, count: r.failures.length, green: r.green };
        };
        const aOff = await verify(a, false);
        const aOn = await verify(a, true);
        const bOff = await verify(b, false);
        const bOn = await verify(b, true);
        assert.ok(!aOff.green && aOff.count > 1, 'the fixture fails');
        assert.deepEqual([aOn.hash, bOff.hash, bOn.hash], [aOff.hash, aOff.hash, aOff.hash], 'only noise differs: same identity');
        assert.equal(aOn.count, aOff.count);

        edit(a.project, s.fix);
        const fixed = await verify(a, false);
        assert.notEqual(fixed.hash, aOff.hash, 'one failure fixed: another identity');
        assert.equal(fixed.count, aOff.count - 1);

        edit(b.project, s.changeActual);
        const changed = await verify(b, false);
        assert.notEqual(changed.hash, aOff.hash, 'an actual value changed: another identity');
        assert.notEqual(changed.hash, fixed.hash);
        assert.equal(changed.count, aOff.count);
      } finally {
        for (const x of scratch) x.cleanup();
      }
    });
  }
});

// Issue 13, item 3: the same state checked twice gives one hash, read by its parser or, where output
// falls back to the generic parser, from its normalized tail (node:test's `duration_ms`, `file://` URLs).
describe('failure identity: each runner twice on the same failing project', function () {
  this.timeout(600000);
  // `orderFree: false`: the runner prints its files' sections in the order parallel workers finish
  // them, so a fixed-size tail of the output cuts it at different places; only its parser's reading
  // (which every such runner has) can be the same twice.
  const twice: { fixture: string; command: string; orderFree?: false }[] = [
    { fixture: 'tsc', command: 'tsc --noEmit -p .' },
    { fixture: 'eslint', command: 'eslint .' },
    { fixture: 'mocha', command: 'mocha' },
    { fixture: 'jest', command: 'jest', orderFree: false },
    { fixture: 'vitest', command: 'vitest run' },
    { fixture: 'node-test', command: 'node --test' },
    { fixture: 'node-test', command: 'node --test --test-reporter=spec' },
    { fixture: 'chain-node-test', command: 'npm test --silent' },
    { fixture: 'node-test', command: 'node --test --test-reporter=tap' },
    { fixture: 'mocharc', command: 'mocha' },
    { fixture: 'ava', command: 'ava --tap' },
    { fixture: 'ava', command: 'ava' },
    { fixture: 'uvu', command: 'uvu test' },
    { fixture: 'vitest-shared-block', command: 'vitest run' },
    { fixture: 'ts-jest', command: 'jest', orderFree: false },
  ];
  for (const t of twice) {
    it(`${t.fixture} (${t.command}): one hash from its parser and one from the generic tail`, async () => {
      const s = copyFixture(`verify/${t.fixture}`);
      try {
        const run = async (): Promise<{ parsed: string; generic: string; count: number }> => {
          const r = await runCommand({ command: t.command, cwd: s.project, timeoutMs: 300000, outputLimitBytes: 256 * 1024, env: checkEnv(s.project) });
          const ctx = { check: 'c', root: s.project, exitCode: r.exitCode };
          const parsed = parseOutput(parserForCommand(t.command, s.project), r.output, ctx);
          const ictx = { root: s.project };
          return { parsed: failureIdentity(parsed, ictx), generic: failureIdentity(parseGeneric(r.output, ctx), ictx), count: parsed.length };
        };
        const a = await run();
        const b = await run();
        // ava's own reporter has no parser: one generic failure; the others one per failing test.
        assert.ok(a.count >= (parserForCommand(t.command, s.project) === 'generic' ? 1 : 2), 'the fixture fails');
        assert.equal(b.parsed, a.parsed, 'parsed: one hash');
        if (t.orderFree !== false) assert.equal(b.generic, a.generic, 'generic tail: one hash');
      } finally {
        s.cleanup();
      }
    });
  }
});

// Nothing that varies run to run enters the identity: the cut marker and where the cut falls, sizes,
// durations, temp paths, PIDs, ports, addresses.
describe('identity: run-to-run noise, as a table', () => {
  const root = '/home/ana/projects/shop';
  const key = (message: string): string => JSON.stringify(normalizeMessage(message, { root }));
  const same: [string, string][] = [
    ['[... 12021 bytes of output cut by fix-until-green ...]', '[... 9 bytes of output cut by fix-until-green ...]'],
    ['✓ adds (12ms)', '✓ adds (3ms)'],
    ['done in 1.23s', 'done in 0.4s'],
    ['took 1.5 s', 'took 12 s'],
    ['(45 MB heap size)', '(112 MB heap size)'],
    ['wrote 1.2 kB to disk', 'wrote 880 kB to disk'],
    ['buffer of 512KiB', 'buffer of 1024KiB'],
    ['cannot open /tmp/tmp-4412-aBcD/out.json', 'cannot open /tmp/tmp-99-ZZzz/out.json'],
    ['cannot open /var/folders/x8/k2_9w/T/jest_rs/cache.json', 'cannot open /private/var/folders/a1/zz_0q/T/jest_rs/cache.json'],
    ['worker pid 4412 exited', 'worker pid 7 exited'],
    ['listening on port 53122', 'listening on port 40001'],
    ['connect ECONNREFUSED 127.0.0.1:53122', 'connect ECONNREFUSED 127.0.0.1:40001'],
    ['at 0x7ffde4a0c3b8', 'at 0x55d0c1a2b3c4'],
  ];
  for (const [a, b] of same) it(`${a}  ≡  ${b}`, () => assert.equal(key(a), key(b)));

  const different: [string, string][] = [
    ['expected 3 bytes, got 4', 'expected 3 bytes, got 5'],
    ['expected 6 to be 14', 'expected 6 to be 15'],
    ['port must be a number', 'host must be a string'],
  ];
  for (const [a, b] of different) it(`${a}  ≢  ${b}`, () => assert.notEqual(key(a), key(b)));

  it('a failure whose message the cut runs through is the failure, not the part of its text kept', () => {
    const cut = (bytes: number, before: string, after: string): Failure => ({ check: 'lint', id: 'exit', message: `${before}\n[... ${bytes} bytes of output cut by fix-until-green ...]\n${after}` });
    assert.equal(failureIdentity([cut(120, 'item 3 ok', 'xxxx boom')], { root }), failureIdentity([cut(9000, 'item 17 ok in 4', 'xxxxxxxxxxx boom')], { root }));
  });
});

describe('identity of a real check whose output is cut, checked twice', function () {
  this.timeout(120000);

  it('the cut marker inside its (generic) failure changes nothing: same identity', async () => {
    const s = copyFixture('verify/flood');
    try {
      const verify = (): Promise<VerifyResult> => new Verifier({ root: s.project, checks: [{ name: 'schema', command: 'node check.mjs' }], parallel: false, outputLimitKb: 4, flakyReruns: 0 }).verify();
      const a = await verify();
      const b = await verify();
      assert.match(a.failures[0]!.message, /bytes of output cut by fix-until-green/);
      assert.notEqual(a.checks[0]!.output, b.checks[0]!.output);
      assert.deepEqual(a.checks[0]!.incomplete, {});
      assert.equal(a.failureHash, b.failureHash);
    } finally {
      s.cleanup();
    }
  });
});

describe('identity of a failure whose values come from the clock and a random source (real Jest)', function () {
  this.timeout(120000);
  it('two runs on the same bytes have one identity, and a changed assertion another', async () => {
    const t = tempTree(
      {
        'package.json': '{ "name": "volatile-values", "private": true }',
        'volatile.test.js': "const { randomBytes } = require('node:crypto');\nconst assert = require('node:assert');\n\ntest('a v7-like value', () => {\n  const v = (BigInt(Date.now()) << 80n) | BigInt('0x' + randomBytes(8).toString('hex'));\n  assert.strictEqual(v, 1n);\n});\n\ntest('a random id', () => {\n  expect(randomBytes(16).toString('hex')).toBe('fixed');\n});\n",
      },
      'fug-volatile-',
    );
    symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
    try {
      const checks = [{ name: 'test', command: 'jest', parser: 'jest' as const }];
      const run = () => new Verifier({ root: t.dir, checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify(undefined, { previous: null });
      const [a, b] = [await run(), await run()];
      assert.equal(a.failures.length, 2);
      assert.notEqual(a.failures.map((f) => f.message).join(), b.failures.map((f) => f.message).join(), 'the messages differ run to run');
      assert.equal(a.failureHash, b.failureHash);
      writeFileSync(path.join(t.dir, 'volatile.test.js'), readFileSync(path.join(t.dir, 'volatile.test.js'), 'utf8').replace("toBe('fixed')", "toBe('other')"));
      assert.notEqual((await run()).failureHash, a.failureHash, 'what the test asserts is still the identity');
    } finally {
      t.cleanup();
    }
  });
});
