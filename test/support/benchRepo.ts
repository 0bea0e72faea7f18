// A repository whose history the bench tests read: real `git` commits in os.tmpdir(), each a real
// shape of bug fix with its tests (a tsc error, a failing assertion split over two test files, a
// lint rule), a docs-only commit, a commit whose tests already pass. The checks are the project's
// own tsc, ESLint and node:test, with the repo's pinned tools linked in as node_modules.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO } from './fixtures';

export interface BenchRepo {
  dir: string;
  root: string;
  /** Commit ids by name. */
  commits: Record<string, string>;
  checks: { name: string; command: string }[];
  cleanup(): void;
}

export function gitIn(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' } });
}

function write(root: string, files: Record<string, string | null>): void {
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(root, rel);
    if (text === null) rmSync(abs, { force: true });
    else {
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, text);
    }
  }
}

const MATH = `// @ts-check
/** @param {number} a @param {number} b */
export function add(a, b) {
  return a + b;
}
`;

const RANGE_BUGGY = `// @ts-check
/** @param {number} x @param {number} lo @param {number} hi */
export function clamp(x, lo, hi) {
  return x;
}
`;

const RANGE_FIXED = `// @ts-check
/** @param {number} x @param {number} lo @param {number} hi */
export function clamp(x, lo, hi) {
  return Math.min(hi, Math.max(lo, x));
}
`;

const test = (name: string, imp: string, body: string): string => `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ${imp} } from '../src/${imp === 'clamp' ? 'range' : imp === 'isZero' ? 'zero' : 'math'}.js';

test('${name}', () => {
  ${body}
});
`;

type Committer = (name: string, message: string, files: Record<string, string | null>) => void;

function newRepo(dir: string, name = 'repo'): { root: string; commits: Record<string, string>; commit: Committer } {
  const root = path.join(dir, name);
  mkdirSync(root);
  gitIn(root, ['init', '-q', '-b', 'main']);
  gitIn(root, ['config', 'commit.gpgsign', 'false']);
  symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  const commits: Record<string, string> = {};
  const commit: Committer = (n, message, files) => {
    write(root, files);
    gitIn(root, ['add', '-A']);
    gitIn(root, ['commit', '-q', '-m', message]);
    commits[n] = gitIn(root, ['rev-parse', 'HEAD']).trim();
  };
  return { root, commits, commit };
}

/**
 * A second history, for the split within one file: the clamp fix whose two failing tests ('clamp low',
 * 'clamp high') both live in test/clamp.test.js. `name` places it beside another repository in `dir`.
 */
export function makeOneFileRepo(dir = mkdtempSync(path.join(os.tmpdir(), 'fug-bench1-')), name = 'repo'): BenchRepo {
  const { root, commits, commit } = newRepo(dir, name);
  commit('init', 'init', {
    '.gitignore': 'node_modules\n',
    'package.json': JSON.stringify({ name: 'bench-one-file', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n',
    'src/range.js': RANGE_BUGGY,
    'test/keep.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n\ntest('one is one', () => {\n  assert.equal(1, 1);\n});\n",
  });
  commit('clamp', 'clamp clamps both ends', {
    'src/range.js': RANGE_FIXED,
    'test/clamp.test.js': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clamp } from '../src/range.js';

test('clamp low', () => {
  assert.equal(clamp(-5, 0, 10), 0);
});

test('clamp high', () => {
  assert.equal(clamp(50, 0, 10), 10);
});
`,
  });
  return { dir, root, commits, checks: [{ name: 'test', command: 'node --test' }], cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function makeBenchRepo(): BenchRepo {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-bench-'));
  const { root, commits, commit } = newRepo(dir);
  commit('init', 'init', {
    '.gitignore': 'node_modules\n',
    'package.json': JSON.stringify({ name: 'bench-fixture', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n',
    'tsconfig.json': JSON.stringify({ compilerOptions: { allowJs: true, checkJs: true, noEmit: true, strict: true, module: 'nodenext', target: 'es2022', skipLibCheck: true, types: ['node'] }, include: ['src', 'test'] }, null, 2) + '\n',
    'eslint.config.js': "export default [{ files: ['src/**/*.js'], rules: { eqeqeq: 'error' } }];\n",
    'README.md': '# fixture\n',
    'src/math.js': MATH,
    'src/range.js': RANGE_BUGGY,
    'test/math.test.js': test('add adds', 'add', 'assert.equal(add(1, 2), 3);'),
  });
  commit('tsc', 'Export sub (tsc: the test imports it)', {
    'src/math.js': `${MATH}\n/** @param {number} a @param {number} b */\nexport function sub(a, b) {\n  return a - b;\n}\n`,
    'test/sub.test.js': test('sub subtracts', 'sub', 'assert.equal(sub(5, 3), 2);'),
  });
  commit('assert', 'clamp clamps both ends', {
    'src/range.js': RANGE_FIXED,
    'test/clampLow.test.js': test('clamp low', 'clamp', 'assert.equal(clamp(-5, 0, 10), 0);'),
    'test/clampHigh.test.js': test('clamp high', 'clamp', 'assert.equal(clamp(50, 0, 10), 10);'),
  });
  commit('lintBug', 'Add isZero', { 'src/zero.js': '// @ts-check\n/** @param {unknown} x */\nexport function isZero(x) {\n  return x == 0;\n}\n' });
  commit('lint', 'isZero: strict equality (eqeqeq)', {
    'src/zero.js': '// @ts-check\n/** @param {unknown} x */\nexport function isZero(x) {\n  return x === 0;\n}\n',
    'test/zero.test.js': test('isZero', 'isZero', "assert.equal(isZero(0), true);\n  assert.equal(isZero('0'), false);"),
  });
  commit('docs', 'Docs: usage', { 'README.md': '# fixture\n\nUse add, sub, clamp.\n' });
  commit('green', 'Test add more (already passing)', {
    'src/math.js': `// math helpers\n${MATH}\n/** @param {number} a @param {number} b */\nexport function sub(a, b) {\n  return a - b;\n}\n`,
    'test/addMore.test.js': test('add more', 'add', 'assert.equal(add(2, 2), 4);'),
  });
  return {
    dir,
    root,
    commits,
    checks: [
      { name: 'typecheck', command: 'tsc --noEmit -p .' },
      { name: 'lint', command: 'eslint src' },
      { name: 'test', command: 'node --test' },
    ],
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
