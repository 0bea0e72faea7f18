// Whether a tsc call writes files, read through its tsconfig's `extends` (src/core/verify/tscEmit.ts).
// commander's shape: `check:type:js: tsc -p tsconfig.js.json`, whose config extends the root
// tsconfig.json that sets `noEmit`. Read by its flags alone, the script looked like a build, was no
// check, and a JSDoc type error the project's own `npm run check` fails on was called green.
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { discoverChecks } from '../../../src/core/verify/discover';
import { tscWritesNothing } from '../../../src/core/verify/tscEmit';
import { Verifier } from '../../../src/core/verify/verifier';
import { writesFiles } from '../../../src/core/verify/writers';
import { REPO, tempTree } from '../../support/fixtures';

describe('tsc calls that write nothing, read through extends', () => {
  const configs = {
    'tsconfig.json': '{\n  // the base: checks only\n  "compilerOptions": { "noEmit": true, "checkJs": true, "allowJs": true },\n}\n',
    'tsconfig.js.json': '{ "extends": "./tsconfig.json", "include": ["lib/**/*.js"], }',
    'tsconfig.bare.json': '{ "extends": "./tsconfig" }',
    'tsconfig.emit.json': '{ "extends": "./tsconfig.json", "compilerOptions": { "noEmit": false, "outDir": "out" } }',
    'tsconfig.later.json': '{ "extends": ["./tsconfig.json", "./node_modules/@acme/tsconfig/emit.json"] }',
    'tsconfig.earlier.json': '{ "extends": ["./node_modules/@acme/tsconfig/emit.json", "./tsconfig.json"] }',
    'tsconfig.pkg.json': '{ "extends": "@acme/tsconfig/check.json" }',
    'tsconfig.pkgmain.json': '{ "extends": "@acme/tsconfig" }',
    'tsconfig.missing.json': '{ "extends": "@acme/nothing/tsconfig.json" }',
    'cycle/a.json': '{ "extends": "./b.json" }',
    'cycle/b.json': '{ "extends": "./a.json" }',
    'node_modules/@acme/tsconfig/package.json': '{ "name": "@acme/tsconfig", "version": "1.0.0" }',
    'node_modules/@acme/tsconfig/tsconfig.json': '{ "compilerOptions": { "noEmit": true } }',
    'node_modules/@acme/tsconfig/check.json': '{ "compilerOptions": { "noEmit": true } }',
    'node_modules/@acme/tsconfig/emit.json': '{ "compilerOptions": { "noEmit": false } }',
  };

  it('follows extends: relative (with or without .json), a package config, a package folder; a list lets the later win', () => {
    const t = tempTree(configs, 'fug-tscemit-');
    try {
      for (const c of ['tsc -p tsconfig.js.json', 'tsc -p tsconfig.bare.json', 'tsc --project tsconfig.pkg.json', 'tsc -p tsconfig.pkgmain.json', 'tsc -p tsconfig.earlier.json', 'tsc', 'node node_modules/typescript/bin/tsc -p tsconfig.js.json']) {
        assert.equal(tscWritesNothing(c, t.dir), true, c);
      }
      for (const c of ['tsc -p tsconfig.emit.json', 'tsc -p tsconfig.later.json', 'tsc -p tsconfig.missing.json', 'tsc -p cycle/a.json', 'tsc -b', 'tsc -p tsconfig.js.json --noEmit false', 'tsc -p absent.json']) {
        assert.equal(tscWritesNothing(c, t.dir), false, c);
      }
      assert.equal(tscWritesNothing('tsc --noEmit -p tsconfig.emit.json', t.dir), true, 'the flag wins over the config');
      // The check plan reads it the same way: a call that inherits noEmit runs beside the others.
      assert.equal(writesFiles('tsc -p tsconfig.js.json', t.dir), undefined);
      assert.match(writesFiles('tsc -p tsconfig.emit.json', t.dir) ?? '', /writes its build output/);
    } finally {
      t.cleanup();
    }
  });

  it("commander's shape: the script whose config inherits noEmit is the type check, and a JSDoc type error makes the check red", async function () {
    this.timeout(120000);
    const t = tempTree(
      {
        'package.json': JSON.stringify({ name: 'inherits-noemit', private: true, scripts: { 'check:type:js': 'tsc -p tsconfig.js.json', 'check:type:ts': 'tsc -p tsconfig.ts.json', test: 'node --test && npm run check:type:ts' } }),
        // The tests' chain runs tsc too, on the TypeScript files only: no stand-in for the JavaScript's type check.
        'tsconfig.ts.json': '{ "extends": "./tsconfig.json", "include": ["types/**/*.ts"] }',
        'types/index.d.ts': 'export declare function total(xs: number[]): number;\n',
        'tsconfig.json': configs['tsconfig.json'],
        'tsconfig.js.json': configs['tsconfig.js.json'],
        'lib/total.js': "/** @param {number[]} xs @returns {number} */\nexport function total(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}\n\n/** @type {number} */\nexport const label = 'not a number';\n",
        'test/total.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { total } from '../lib/total.js';\n\ntest('total', () => assert.equal(total([1, 2]), 3));\n",
      },
      'fug-tscemit-',
    );
    symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
    try {
      const d = discoverChecks(t.dir);
      const typecheck = d.checks.find((c) => c.name === 'check:type:js');
      assert.ok(typecheck, `the type check is discovered: ${d.notes.join('\n')}`);
      assert.equal(typecheck.parser, 'tsc');
      const v = await new Verifier({ root: t.dir, checks: d.checks, parallel: true, outputLimitKb: 256 }).verify(undefined, { previous: null });
      assert.equal(v.green, false);
      assert.deepEqual(v.failures.map((f) => [f.check, f.file, f.id]), [['check:type:js', 'lib/total.js', 'TS2322']]);
    } finally {
      t.cleanup();
    }
  });
});
