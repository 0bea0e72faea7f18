// Each distinct command once per check pass (issue 39): a chained test script (`eslint src && node
// --test`) whose lint is also a check of its own runs that lint once, as the lint check, and the rest
// of its chain alone once it passed; the verdict is the one the checks give run apart (each its whole
// command), in a full pass, a staged step and the gate after it. Real ESLint and node:test.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckSpec, Failure, Logger, VerifyResult } from '../../../src/core/types';
import { chainOnce } from '../../../src/core/verify/chainOnce';
import { failureIdentity } from '../../../src/core/verify/identity';
import { parserForCommand } from '../../../src/core/verify/infer';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const LINT: CheckSpec = { name: 'lint', command: 'eslint src --format json', parser: 'eslint' };
const TEST: CheckSpec = { name: 'test', command: 'npm test --silent', parser: 'node-test' };

interface Pass {
  r: VerifyResult;
  /** Every command the verifier ran, as `check: command`. */
  ran: string[];
}

describe('each distinct command once per check pass', function () {
  this.timeout(180_000);
  let s: Scratch;
  /** Each run's end, with how many runs had started by then. */
  let ended: { m: string; at: number }[] = [];
  beforeEach(() => {
    s = copyFixture('verify/chainOnce');
    ended = [];
  });
  afterEach(() => s.cleanup());

  function verifier(checks: CheckSpec[], ran: string[], staged = false): Verifier {
    const logger: Logger = {
      ...silent(),
      debug: (m: string) => {
        if (/^check [\w-]+: (?!exit|runs )/.test(m)) ran.push(m.replace(/^check ([\w-]+): /, '$1: '));
        else if (/^check [\w-]+: exit /.test(m)) ended.push({ m: m.replace(/^check ([\w-]+): exit.*/, '$1 ended'), at: ran.length });
      },
    };
    return new Verifier({ root: s.project, checks, parallel: true, outputLimitKb: 256, flakyReruns: 1, staged, logger, storageDir: path.join(s.dir, `storage-${checks.map((c) => c.name).join('-')}`) });
  }

  async function together(changed?: string[], v?: Verifier, ran: string[] = []): Promise<Pass> {
    const verifierOf = v ?? verifier([LINT, TEST], ran);
    const r = await verifierOf.verify(undefined, changed ? { changed } : {});
    return { r, ran };
  }

  /** The verdict of each check run apart, each its whole command: what the pass gave before. */
  async function apart(vs: Verifier[], changed?: string[]): Promise<{ failures: Failure[]; hash: string; green: boolean }> {
    const rs = await Promise.all(vs.map((v) => v.verify(undefined, changed ? { changed } : {})));
    const failures = rs.flatMap((r) => r.failures);
    return { failures, hash: failureIdentity(failures, { root: s.project }), green: rs.every((r) => r.green) };
  }

  const keys = (fs: readonly Failure[]): string[] => fs.map((f) => `${f.check} ${f.file}:${f.line ?? ''} ${f.id}`).sort();
  const eslintRuns = (ran: readonly string[]): string[] => ran.filter((c) => /eslint|npm test/.test(c));
  const edit = (rel: string, from: string, to: string): void => writeFileSync(path.join(s.project, rel), readFileSync(path.join(s.project, rel), 'utf8').replace(from, to));

  it('runs the chain\'s lint once, as the lint check, and the tests alone after it passed; the verdict is the checks\' run apart', async () => {
    edit('src/tax.js', '1.2', '1.3');
    const once = await together();
    assert.deepEqual(eslintRuns(once.ran), ['lint: eslint src --format json'], once.ran.join('\n'));
    assert.ok(once.ran.includes('test: node --test'), once.ran.join('\n'));
    const before = await apart([verifier([LINT], []), verifier([TEST], [])]);
    assert.equal(once.r.green, false);
    assert.deepEqual(keys(once.r.failures), ['test test/tax.test.js:6 tax adds a fifth']);
    assert.deepEqual(keys(once.r.failures), keys(before.failures));
    assert.equal(once.r.failureHash, before.hash);
    assert.match(once.r.checks.find((c) => c.name === 'test')!.stagedNote ?? '', /`eslint src` ran once, as lint \(passed\): the rest ran alone \(`node --test`\), started beside them/);
    // The rest started beside the lint, not after it: both had started before the lint ended.
    const lintEnd = ended.find((e) => e.m === 'lint ended')!;
    assert.ok(once.ran.indexOf('test: node --test') < lintEnd.at, `${once.ran.join('\n')}\n${JSON.stringify(ended)}`);
  });

  it('runs the whole chain where the lint failed: its failures are the chain\'s, as before', async () => {
    edit('src/cart.js', 'export function total', 'const unused = 1;\nexport function total');
    const once = await together();
    assert.ok(once.ran.includes('test: npm test --silent'), once.ran.join('\n'));
    // The rest had started beside the lint; the lint failed, so it was cancelled and the chain ran whole after it.
    assert.ok(once.ran.includes('test: node --test') && once.ran.indexOf('test: node --test') < once.ran.indexOf('test: npm test --silent'), once.ran.join('\n'));
    assert.match(once.r.checks.find((c) => c.name === 'test')!.stagedNote ?? '', /lint did not pass: the whole chain ran, as written/);
    const before = await apart([verifier([LINT], []), verifier([TEST], [])]);
    assert.equal(once.r.green, false);
    assert.ok(once.r.failures.some((f) => f.check === 'test' && f.id === 'no-unused-vars'), keys(once.r.failures).join('\n'));
    assert.deepEqual(keys(once.r.failures), keys(before.failures));
    assert.equal(once.r.failureHash, before.hash);
  });

  it('narrows the chain in a staged step to the runner on the affected tests, and the gate decides green as before', async () => {
    edit('src/tax.js', '1.2', '1.3');
    const ran: string[] = [];
    const v = verifier([LINT, TEST], ran, true);
    const vLint = verifier([LINT], [], true);
    const vTest = verifier([TEST], [], true);
    await together(undefined, v, ran);
    await apart([vLint, vTest]);
    // A step that still fails: the runner alone on the failing and related test files, no chain.
    edit('src/tax.js', '1.3', '1.25');
    ran.length = 0;
    const red = await together(['src/tax.js'], v, ran);
    const redApart = await apart([vLint, vTest], ['src/tax.js']);
    assert.ok(!ran.some((c) => /npm test/.test(c)), ran.join('\n'));
    assert.ok(ran.includes('test: node --test test/tax.test.js'), ran.join('\n'));
    assert.equal(red.r.green, false);
    assert.deepEqual(keys(red.r.failures), keys(redApart.failures));
    assert.equal(red.r.failureHash, redApart.hash);
    // The fix: staged runs pass, then every check in full decides green; the chain's lint once.
    edit('src/tax.js', '1.25', '1.2');
    ran.length = 0;
    const green = await together(['src/tax.js'], v, ran);
    const greenApart = await apart([vLint, vTest], ['src/tax.js']);
    assert.equal(green.r.green, true);
    assert.equal(greenApart.green, true);
    assert.equal(green.r.failureHash, greenApart.hash);
    assert.deepEqual(eslintRuns(ran), ['lint: eslint --format json --no-warn-ignored src/tax.js', 'lint: eslint src --format json'], ran.join('\n'));
    assert.deepEqual(ran.filter((c) => c.startsWith('test:')), ['test: node --test test/tax.test.js', 'test: node --test'], ran.join('\n'));
    await Promise.all([v.release(), vLint.release(), vTest.release()]);
  });

  it('runs a lint that chains ESLint and `prettier -c` once when the test script runs it first (ufo, css-what); the verdict is the checks\' run apart', async () => {
    // ufo's shape: `lint: eslint . && prettier -c src`, `test: pnpm lint && vitest run`. The lint
    // check is read with the prettier parser (the chain's last checker): it is as static as ESLint.
    edit('package.json', '"lint": "eslint src"', '"lint": "eslint src && prettier -c src"');
    edit('package.json', '"test": "eslint src && node --test"', '"test": "npm run lint && node --test"');
    const lint: CheckSpec = { name: 'lint', command: 'npm run lint --silent', parser: 'prettier' };
    edit('src/tax.js', '1.2', '1.3');
    const ran: string[] = [];
    const once = await together(undefined, verifier([lint, TEST], ran), ran);
    assert.deepEqual(ran.filter((c) => /npm (run lint|test)|eslint|prettier/.test(c)), ['lint: npm run lint --silent'], ran.join('\n'));
    assert.ok(ran.includes('test: node --test'), ran.join('\n'));
    const before = await apart([verifier([lint], []), verifier([TEST], [])]);
    assert.equal(once.r.green, false);
    assert.deepEqual(keys(once.r.failures), ['test test/tax.test.js:6 tax adds a fifth']);
    assert.equal(once.r.failureHash, before.hash);
    // A formatting failure in the lint: the test check runs its whole chain, which stops there too.
    edit('src/tax.js', '1.3', '1.2');
    edit('src/cart.js', 'return lines', 'return   lines');
    const ranRed: string[] = [];
    const red = await together(undefined, verifier([lint, TEST], ranRed), ranRed);
    const redApart = await apart([verifier([lint], []), verifier([TEST], [])]);
    assert.equal(red.r.green, false);
    assert.ok(red.r.failures.some((f) => f.check === 'lint' && f.file === 'src/cart.js'), JSON.stringify(red.r.failures));
    assert.deepEqual(keys(red.r.failures), keys(redApart.failures));
    assert.equal(red.r.failureHash, redApart.hash);
  });

  it('takes out only parts that are static checks of their own and write nothing; a build stays in its place', () => {
    const parserOf = (c: CheckSpec): ReturnType<typeof parserForCommand> => c.parser ?? parserForCommand(c.command, s.project);
    const typecheck: CheckSpec = { name: 'typecheck', command: 'tsc --noEmit -p .', parser: 'tsc' };
    const build: CheckSpec = { name: 'build', command: 'tsc -p .', parser: 'tsc' };
    const chain = (command: string, checks: CheckSpec[]): ReturnType<typeof chainOnce> => chainOnce({ name: 'test', command, parser: 'node-test' }, checks, s.project, parserOf);
    assert.deepEqual(chain('npm test', [LINT]), { parts: [{ part: 'eslint src', check: 'lint' }], rest: 'node --test' });
    assert.deepEqual(chain('npm run lint && tsc --noEmit -p . && node --test', [LINT, typecheck]), { parts: [{ part: 'npm run lint', check: 'lint' }, { part: 'tsc --noEmit -p .', check: 'typecheck' }], rest: 'node --test' });
    // An emitting tsc writes what the tests read: it stays, before them.
    assert.deepEqual(chain('eslint src && tsc -p . && node --test', [LINT, build]), { parts: [{ part: 'eslint src', check: 'lint' }], rest: 'tsc -p . && node --test' });
    // A lint that is ESLint then Prettier (`--check` writes nothing, and answers the same twice): its check stands for it.
    const lintAndFormat: CheckSpec = { name: 'lint', command: 'npm run lint --silent', parser: 'prettier' };
    assert.deepEqual(chain('npm run lint && node --test', [lintAndFormat]), { parts: [{ part: 'npm run lint', check: 'lint' }], rest: 'node --test' });
    // No part another check runs, a test check of its own, another folder: nothing taken out.
    assert.equal(chain('npm test', []), undefined);
    assert.equal(chain('eslint src && node --test', [{ ...LINT, cwd: 'src' }]), undefined);
    assert.equal(chainOnce({ name: 'lint2', command: 'eslint src && eslint test', parser: 'eslint' }, [LINT], s.project, parserOf), undefined);
    // npm's pre-script (a build) is the chain's first step: it stays first in the rest.
    edit('package.json', '"test":', '"pretest": "node -e 0",\n    "test":');
    assert.deepEqual(chain('npm test', [LINT]), { parts: [{ part: 'eslint src', check: 'lint' }], rest: 'node -e 0 && node --test' });
    // pnpm runs no pre script unless configured to: its chain runs as written.
    assert.equal(chain('pnpm test', [LINT]), undefined);
    // A post-script (a coverage gate of its own) after the test script: the chain runs whole.
    edit('package.json', '"test":', '"posttest": "node -e 0",\n    "test":');
    assert.equal(chain('npm test', [LINT]), undefined);
  });
});

function silent(): Logger {
  const none = (): void => undefined;
  return { debug: none, info: none, warn: none, error: none } as Logger;
}
