// The file a node_modules/.bin entry runs: npm's link followed, pnpm's and cmd-shim's shell wrappers read.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { binTarget, wrapperTarget } from '../../../src/core/verify/binTarget';

describe('binTarget', () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'fug-bin-')));
    mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
    mkdirSync(path.join(dir, 'node_modules', 'eslint', 'bin'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', 'eslint', 'bin', 'eslint.js'), '#!/usr/bin/env node\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const bin = (name: string): string => path.join(dir, 'node_modules', '.bin', name);

  it('follows npm\'s link, reads a cmd-shim wrapper (npm on Windows), leaves any other file as itself', () => {
    const real = path.join(dir, 'node_modules', 'eslint', 'bin', 'eslint.js');
    symlinkSync('../eslint/bin/eslint.js', bin('eslint'));
    assert.equal(binTarget(bin('eslint')), real);
    writeFileSync(bin('eslint-shim'), '#!/bin/sh\nbasedir=$(dirname "$(echo "$0" | sed -e \'s,\\\\,/,g\')")\n\ncase `uname` in\n    *CYGWIN*|*MINGW*|*MSYS*) basedir=`cygpath -w "$basedir"`;;\nesac\n\nif [ -x "$basedir/node" ]; then\n  exec "$basedir/node"  "$basedir/../eslint/bin/eslint.js" "$@"\nelse \n  exec node  "$basedir/../eslint/bin/eslint.js" "$@"\nfi\n');
    assert.equal(binTarget(bin('eslint-shim')), real);
    // A link to a wrapper (a .bin entry linked from a parent folder) reads the wrapper it ends in.
    symlinkSync('eslint-shim', bin('linked'));
    assert.equal(binTarget(bin('linked')), real);
    writeFileSync(bin('own'), '#!/bin/sh\necho hi\n');
    assert.equal(binTarget(bin('own')), bin('own'));
    assert.equal(binTarget(bin('missing')), undefined);
    assert.equal(wrapperTarget('#!/usr/bin/env node\nexec node "$basedir/x.js" "$@"\n'), undefined, 'only a shell script is a wrapper');
  });
});
