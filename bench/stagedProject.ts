// A real-shaped project for the staged-checks figures: 32 feature folders of 5 modules each plus a
// shared module (161 source files, JavaScript typed with JSDoc and checked by tsc's checkJs), an
// ESLint flat config with @eslint/js's recommended rules, and 32 Jest test files of 10 tests each.
// Two features start with a bug (failing tests in one test file each): step 1 fixes one (and breaks
// a passing test of the same module), step 2 the rest.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export const FEATURES = 32;
const MODULES = 5;
const TESTS_PER_FILE = 10;

/**
 * Step 1's one-file edit to the first bug's file: it fixes the bug and breaks that module's label
 * (a test that passed now fails: its confirmation re-run is part of the step).
 */
export const STEP1_BREAKS = { from: 'clamp(r.qty, 0, 100)', to: 'clamp(r.qty, 0, 99)' } as const;

/** The two bugs: file, the wrong line and its fix. */
export const BUGS = [
  { file: 'src/f7/m2.js', wrong: 'return base * factor - 1;', right: 'return base * factor;' },
  { file: 'src/f20/m3.js', wrong: 'return base * factor - 1;', right: 'return base * factor;' },
] as const;

function moduleSource(k: number, j: number): string {
  const buggy = BUGS.some((b) => b.file === `src/f${k}/m${j}.js`);
  const sibling = j > 0 ? `const { scale${j - 1} } = require('./m${j - 1}');\n` : '';
  const base = j > 0 ? `scale${j - 1}(x, 1)` : 'x';
  const helpers = Array.from(
    { length: 6 },
    (_, h) => `
/**
 * @template {{ id: number, qty: number }} T
 * @param {readonly T[]} items
 * @param {(item: T, index: number) => number} weigh
 * @returns {Map<number, number>}
 */
function weigh${j}_${h}(items, weigh) {
  /** @type {Map<number, number>} */
  const out = new Map();
  items.forEach((item, i) => out.set(item.id * ${h + 1} + i, weigh(item, i) + sum([item.qty, ${h}])));
  return out;
}
`,
  ).join('');
  return `// Feature ${k}, module ${j}.
const { sum, clamp } = require('../shared/util');
${sibling}
/**
 * @param {number} x
 * @param {number} factor
 * @returns {number}
 */
function scale${j}(x, factor) {
  const base = ${base};
  ${buggy ? 'return base * factor - 1;' : 'return base * factor;'}
}

/**
 * @param {{ name: string, qty: number }[]} rows
 * @returns {string[]}
 */
function label${j}(rows) {
  return rows.map((r) => \`\${r.name}: \${clamp(r.qty, 0, 100)}\`);
}
${helpers}
module.exports = { scale${j}, label${j}, ${Array.from({ length: 6 }, (_, h) => `weigh${j}_${h}`).join(', ')} };
`;
}

function testSource(k: number): string {
  const requires = Array.from({ length: MODULES }, (_, j) => `const m${j} = require('../src/f${k}/m${j}');`).join('\n');
  const tests = Array.from({ length: TESTS_PER_FILE }, (_, t) => {
    const j = t % MODULES;
    if (t < MODULES) return `  test('scale${j} doubles ${t}', () => {\n    expect(m${j}.scale${j}(${t + 1}, 2)).toBe(${(t + 1) * 2});\n  });`;
    return `  test('label${j} clamps ${t}', () => {\n    expect(m${j}.label${j}([{ name: 'a', qty: ${t * 20} }])).toEqual(['a: ${Math.min(100, t * 20)}']);\n  });`;
  }).join('\n');
  return `${requires}\n\ndescribe('feature ${k}', () => {\n${tests}\n});\n`;
}

export function writeStagedProject(dir: string): { sources: number; testFiles: number; tests: number } {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'staged-bench', private: true, type: 'commonjs', scripts: { test: 'jest' }, jest: { testEnvironment: 'node', transform: {}, testMatch: ['**/test/**/*.test.js'] } }, null, 2),
    'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', allowJs: true, checkJs: true, strict: true, noEmit: true, skipLibCheck: true, types: [] }, include: ['src/**/*.js'] }, null, 2),
    'eslint.config.mjs': "import js from '@eslint/js';\nimport globals from 'globals';\n\nexport default [\n  js.configs.recommended,\n  { files: ['**/*.js'], languageOptions: { sourceType: 'commonjs', globals: { ...globals.node, ...globals.jest } } },\n];\n",
    'src/shared/util.js': "/**\n * @param {number[]} xs\n * @returns {number}\n */\nfunction sum(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}\n\n/**\n * @param {number} x\n * @param {number} lo\n * @param {number} hi\n * @returns {number}\n */\nfunction clamp(x, lo, hi) {\n  return Math.min(hi, Math.max(lo, x));\n}\n\nmodule.exports = { sum, clamp };\n",
  };
  for (let k = 0; k < FEATURES; k++) {
    for (let j = 0; j < MODULES; j++) files[`src/f${k}/m${j}.js`] = moduleSource(k, j);
    files[`test/f${k}.test.js`] = testSource(k);
  }
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  return { sources: FEATURES * MODULES + 1, testFiles: FEATURES, tests: FEATURES * TESTS_PER_FILE };
}
