// The rule that tells a tool not installed (the environment's) from a missing module the project's
// own code imports (the code's), on outputs as the real tools print them: Angular's CLI loading
// karma-jasmine from a made-up noop.js (TanStack/store's examples/angular/simple, verbatim but for
// the folder), node's and Jest's resolver messages, tsc's TS2307 (never matched).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { codeFailures, notInstalled } from '../../../src/core/verify/notInstalled';
import { tempTree } from '../../support/fixtures';

describe('not installed: a tool the run lacks, told apart from the code\'s missing module', () => {
  let t: { dir: string; cleanup(): void };
  const ctx = (): { cwd: string; root: string } => ({ cwd: path.join(t.dir, 'examples/app'), root: t.dir });

  beforeEach(() => {
    t = tempTree({
      'package.json': JSON.stringify({ name: 'root', private: true, devDependencies: { vitest: '^4.0.0' } }),
      'examples/app/package.json': JSON.stringify({ name: 'app', devDependencies: { '@angular/cli': '^21.0.0' } }),
      'examples/app/src/main.js': 'require("./missing");\n',
      'node_modules/installed-pkg/package.json': '{"name":"installed-pkg"}',
    }, 'fug-notinstalled-');
  });
  afterEach(() => t.cleanup());

  it('Angular\'s `ng test`: karma-jasmine, resolved from a noop.js that is no file, is not installed', () => {
    const out = `An unhandled exception occurred: Cannot find module 'karma-jasmine'\nRequire stack:\n- ${t.dir}/examples/app/noop.js\nSee "/tmp/ng-ih1pjg/angular-errors.log" for further details.\n`;
    assert.deepEqual(notInstalled(out, 127, ctx()), { tools: ['karma-jasmine'] });
    assert.equal(notInstalled(out, 0, ctx()), undefined, 'a run that passed has no problem');
  });

  it('a package the project declares (the root\'s devDependencies) and no node_modules holds, imported by its own file, is not installed', () => {
    const out = `Error: Cannot find package 'vitest' imported from ${t.dir}/examples/app/src/main.js\n`;
    assert.deepEqual(notInstalled(out, 1, ctx()), { tools: ['vitest'] });
  });

  it('the code\'s own: a relative path, an undeclared package, an installed package\'s wrong subpath, tsc\'s TS2307', () => {
    const main = `${t.dir}/examples/app/src/main.js`;
    for (const out of [
      `Error: Cannot find module './missing'\nRequire stack:\n- ${main}\n`,
      `Cannot find module '../src/stok' from 'test/a.test.js'\n`,
      `Error: Cannot find module 'lodash-typo'\nRequire stack:\n- ${main}\n`,
      `Error [ERR_PACKAGE_PATH_NOT_EXPORTED]: Cannot find module 'installed-pkg/internal' imported from ${main}\n`,
      `src/store.ts(1,28): error TS2307: Cannot find module '@tanstack/vue-store' or its corresponding type declarations.\n`,
      `Error: Cannot find module 'karma-jasmine'\n`,
    ]) assert.equal(notInstalled(out, 1, ctx()), undefined, out);
  });

  it('a program by bare name the shell cannot find is not installed; a path is the project\'s own file', () => {
    assert.deepEqual(notInstalled('scripts/ci.sh: line 2: karma: command not found\n', 127, ctx()), { tools: ['karma'] });
    assert.equal(notInstalled('sh: 1: ./scripts/gen.sh: not found\n', 127, ctx()), undefined);
  });

  it('the failures it set aside are the unplaced ones and those about the missing tool; a test\'s own failure still counts', () => {
    const failures = [
      { check: 'test', id: 'exit', message: "ng failed (exit code 127); its output ends:\nCannot find module 'karma-jasmine'" },
      { check: 'test', file: 'test/a.test.js', line: 3, id: 'adds', message: 'expected 2 to be 3' },
      { check: 'test', file: 'test/b.test.js', id: 'b', message: "Error: Cannot find package 'karma-jasmine' imported from test/b.test.js" },
    ];
    assert.deepEqual(codeFailures(failures, { tools: ['karma-jasmine'] }).map((f) => f.id), ['adds']);
  });
});
