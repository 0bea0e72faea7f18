// A replacement holding a NUL byte would make a text file binary to the product itself (issue 29):
// `apply` (a real CLI process, real files) refuses it with the reason and writes nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureBuilt, runCli } from '../../support/cli';
import { tempTree } from '../../support/fixtures';

describe('apply: a NUL byte in a replacement is refused', function () {
  this.timeout(60_000);
  before(() => ensureBuilt());

  for (const form of ['diff', 'search/replace'] as const) {
    it(`${form}: refused with the reason, the file untouched`, () => {
      const t = tempTree({ 'src/a.ts': 'export const a = 1;\n' });
      try {
        const reply =
          form === 'diff'
            ? '```diff\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const a = 1;\n+export const a = "x\u0000y";\n```\n'
            : 'src/a.ts\n<<<<<<< SEARCH\nexport const a = 1;\n=======\nexport const a = "x\u0000y";\n>>>>>>> REPLACE\n';
        const r = runCli(['apply', '--cwd', t.dir], { input: reply });
        assert.equal(r.code, 1, r.stdout + r.stderr);
        const out = JSON.parse(r.stdout) as { applied: boolean; errors: string[] };
        assert.equal(out.applied, false);
        assert.match(out.errors.join('\n'), /src\/a\.ts: the edit puts a NUL byte \(\\0\) into the file/);
        assert.equal(readFileSync(path.join(t.dir, 'src/a.ts'), 'utf8'), 'export const a = 1;\n');
      } finally {
        t.cleanup();
      }
    });
  }
});
