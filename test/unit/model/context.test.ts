// What the model sees: relevant files in priority order, within contextTokenBudget.
import assert from 'node:assert/strict';
import type { StepContextInput } from '../../../src/core/model/context';
import { buildStepContext, relativeImports } from '../../../src/core/model/context';
import { countTokens } from '../../../src/core/tokens';
import { defaultSettings } from '../../../src/core/settings';
import type { Failure, Logger } from '../../../src/core/types';

function lines(n: number, tag: string): string {
  return Array.from({ length: n }, (_, i) => `export const ${tag}${i} = ${i} * 2; // line ${i + 1} of ${tag}`).join('\n') + '\n';
}

function input(files: Record<string, string>, over: Partial<StepContextInput> = {}): StepContextInput {
  return {
    step: 2,
    settings: { ...defaultSettings(), contextTokenBudget: 24000 },
    failures: [],
    editedFiles: [],
    postMortems: [],
    readText: async (rel) => files[rel],
    ...over,
  };
}

function f(file: string, line?: number, check = 'test'): Failure {
  return { check, file, ...(line !== undefined ? { line } : {}), id: `id-${file}-${line ?? 0}`, message: `failed at ${file}` };
}

describe('step context (relevant files within contextTokenBudget)', () => {
  it('orders files: most failures first, then edited files, the active file, then what failing files import', async () => {
    const files = {
      'test/a.test.ts': "import { a } from '../src/a.js';\nimport { b } from '../src/b';\n",
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 2;\n',
      'src/c.ts': 'export const c = 3;\n',
      'src/edited.ts': 'export const e = 4;\n',
      'src/active.ts': 'export const x = 5;\n',
    };
    const ctx = await buildStepContext(
      input(files, {
        failures: [f('src/c.ts', 1), f('test/a.test.ts', 3), f('test/a.test.ts', 5)],
        editedFiles: ['src/edited.ts', 'src/c.ts'],
        activeFile: 'src/active.ts',
      }),
    );
    assert.deepEqual(ctx.files, ['test/a.test.ts', 'src/c.ts', 'src/edited.ts', 'src/active.ts', 'src/a.ts', 'src/b.ts']);
    assert.deepEqual(ctx.omitted, []);
    const shown = ctx.user.slice(ctx.user.indexOf('## Relevant files'));
    const order = ctx.files.map((p) => shown.indexOf(`### ${p}\n`));
    assert.ok(order.every((v, i) => v > 0 && (i === 0 || v > order[i - 1]!)), 'the prompt shows them in that order');
  });

  it('skips paths outside the workspace, missing files and unreadable ones, and says why in the log', async () => {
    const warnings: string[] = [];
    const logger: Logger = { info: () => undefined, warn: (m) => warnings.push(m), error: () => undefined, debug: () => undefined };
    const ctx = await buildStepContext(
      input({ 'src/ok.ts': 'ok\n' }, {
        failures: [f('../outside.ts', 1), f('/etc/passwd', 1), f('src/gone.ts', 1), f('src/locked.ts', 1), f('src/ok.ts', 1)],
        readText: async (rel) => {
          if (rel === 'src/locked.ts') throw new Error('EACCES: permission denied');
          return rel === 'src/ok.ts' ? 'ok\n' : undefined;
        },
        logger,
      }),
    );
    assert.deepEqual(ctx.files, ['src/ok.ts']);
    assert.match(warnings.join('\n'), /src\/locked\.ts cannot be read \(EACCES/);
  });

  it('shows a file too large for the budget as excerpts around its failures, and omits what still does not fit', async () => {
    const big = lines(2000, 'big');
    const other = lines(2000, 'other');
    const ctx = await buildStepContext(
      input({ 'src/big.ts': big, 'src/other.ts': other }, {
        settings: { ...defaultSettings(), contextTokenBudget: 6000 },
        failures: [f('src/big.ts', 500), f('src/big.ts', 520), f('src/big.ts', 1900)],
        editedFiles: ['src/other.ts'],
      }),
    );
    assert.deepEqual(ctx.files, ['src/big.ts']);
    assert.deepEqual(ctx.omitted, ['src/other.ts']);
    assert.match(ctx.user, /### src\/big\.ts \(excerpt: lines 470-550, 1870-1930 of 2001\)/);
    assert.match(ctx.user, /… \(lines 1-469 not shown\)\nexport const big469 /);
    assert.match(ctx.user, /export const big499 = 499 \* 2; \/\/ line 500 of big/);
    assert.match(ctx.user, /Not shown \(over the context budget\): src\/other\.ts/);
    assert.ok(countTokens(ctx.user) <= 6000);
  });

  it('never goes over contextTokenBudget, whatever the files and failures', async () => {
    let seed = 7;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const flavours = [
      (size: number, tag: string): string => lines(size, tag),
      (size: number, tag: string): string => Array.from({ length: size }, (_, i) => `\t\tconst ${tag}${i} = "naïve café ✓ 日本語 ${i}";   `).join('\r\n'),
      (size: number, tag: string): string => Array.from({ length: size }, (_, i) => (i % 3 ? `  // ${'='.repeat(i % 40)}` : `\n\n  ${tag}(${i});`)).join('\n') + '```\n',
    ];
    for (let i = 0; i < 30; i++) {
      const files: Record<string, string> = {};
      const failures: Failure[] = [];
      const n = 1 + Math.floor(rand() * (i % 3 === 2 ? 20 : 8));
      for (let k = 0; k < n; k++) {
        const size = 5 + Math.floor(rand() * 600);
        const rel = `src/${k % 2 ? `deeply/nested/folder-${'x'.repeat(k * 3)}/` : ''}m${k}.ts`;
        files[rel] = flavours[(i + k) % flavours.length]!(size, `m${k}_`);
        for (let j = 0; j < 1 + Math.floor(rand() * 4); j++) failures.push(f(rel, 1 + Math.floor(rand() * size), j % 2 ? 'tsc' : 'test'));
      }
      const budget = 2000 + Math.floor(rand() * 20000);
      const ctx = await buildStepContext(
        input(files, {
          settings: { ...defaultSettings(), contextTokenBudget: budget },
          failures,
          postMortems: ['p'.repeat(590), 'q'.repeat(590), 'r'.repeat(590)],
          feedback: 'hunk failed\n'.repeat(2000),
        }),
      );
      const used = countTokens(ctx.user);
      assert.ok(used <= budget, `case ${i}: ${used} tokens for a budget of ${budget}`);
      // The count from the parts, which spares counting the whole prompt, is an upper bound and a close one.
      assert.ok(used <= ctx.userTokens, `case ${i}: ${used} tokens counted whole, ${ctx.userTokens} from the parts`);
      assert.ok(ctx.userTokens <= used * 1.1 + 100, `case ${i}: the parts' count ${ctx.userTokens} is far above the whole's ${used}`);
      assert.equal(ctx.files.length + ctx.omitted.length, n, `case ${i}: every relevant file is shown or named`);
    }
  });

  it('builds the system prompt from the settings', async () => {
    const ctx = await buildStepContext(input({}, { settings: { ...defaultSettings(), editFormat: 'diff', protectedPaths: ['spec/**'] } }));
    assert.match(ctx.system, /Protected paths \(edits to them are refused\): spec\/\*\*/);
    assert.match(ctx.system, /unified diffs in ```diff fenced blocks, with/);
  });

  it('resolves relative imports to candidate workspace paths', () => {
    const got = relativeImports('test/unit/x.test.ts', "import { a } from '../../src/a.js';\nconst b = require('./b');\nimport './side-effect';\nimport x from 'lodash';\nimport y from '../../../outside';\n");
    assert.equal(got.length, 3);
    assert.equal(got[0]![0], 'src/a.ts');
    assert.ok(got[0]!.includes('src/a.js'));
    assert.equal(got[1]![0], 'test/unit/b.ts');
    assert.equal(got[2]![0], 'test/unit/side-effect.ts');
  });
});
