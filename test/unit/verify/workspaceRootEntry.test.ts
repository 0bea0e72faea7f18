// A workspace that lists its root among its packages (pnpm's `'./'`, gql.tada's pnpm-workspace.yaml;
// `"workspaces": ["./", …]`): the root is no package of its own, and discovery must not stop at the
// entry (it threw picomatch's "Expected pattern to be a non-empty string": no verdict at all).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { discoverChecks } from '../../../src/core/verify/discover';
import { workspaceAt } from '../../../src/core/verify/workspaces';

describe('a workspace that lists its own root', () => {
  let dir: string;
  const write = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-rootentry-'));
    write('packages/a/package.json', JSON.stringify({ name: 'a', scripts: { test: 'node --test' } }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const [label, files] of [
    ['pnpm-workspace.yaml `./`', { 'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n  - './'\n", 'package.json': JSON.stringify({ name: 'root', scripts: { test: 'pnpm -r test' } }) }],
    ['package.json `./` and `.`', { 'package.json': JSON.stringify({ name: 'root', workspaces: ['./', '.', 'packages/*', '!./'], scripts: { test: 'npm test --workspaces' } }) }],
  ] as const) {
    it(`${label}: its packages are the others, and checks are found`, () => {
      for (const [rel, text] of Object.entries(files)) write(rel, text);
      assert.deepEqual(workspaceAt(dir)?.packages.map((p) => p.name), ['a']);
      const d = discoverChecks(dir);
      assert.deepEqual(d.checks.map((c) => c.name), ['a:test']);
    });
  }
});
