// The gate at the price of the project's own commands (issue 39): on small real projects (a chained
// test script `eslint src && node --test`, an ESLint lint, a tsc project of some size; Jest writing
// coverage beside Prettier), with failures present and absent, a `check` pass (a real CLI process)
// against the project's own commands run once directly, one after another, as a user would; and an
// agent host's hook session: the first Stop (it starts the folder's worker) and a Stop after a
// one-file edit (answered by the warm worker) against the same commands. Both sides of each ratio
// are measured in the same run, on the same tree.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

const MODULES = 40;

/** The project's own commands, as a user runs them. */
export const OWN_COMMANDS = ['npm test', 'npm run lint', 'npm run typecheck'];

/**
 * The shapes measured: `node` (a chained `eslint src && node --test`, an ESLint lint, a 40-module
 * tsc project), `vitest` (`npm run lint && vitest run --typecheck`, a lint of ESLint then
 * Prettier, the same tsc project, TypeScript sources and a type test) and `coverage` (luxon's:
 * `jest --coverage` into build/coverage, Prettier on src/ and test/ globs, the same tsc project).
 */
export type OwnShape = 'node' | 'vitest' | 'coverage';
export const OWN_SHAPES: readonly OwnShape[] = ['node', 'vitest', 'coverage'];

/** The source file the one-file edit touches, per shape (imported by every test). */
export const EDITED: Record<OwnShape, string> = { node: 'src/cart.js', vitest: 'src/cart.ts', coverage: 'src/cart.js' };

export function writeOwnProject(dir: string, failing: boolean, shape: OwnShape = 'node'): void {
  const put = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  if (shape === 'vitest') return writeVitestProject(dir, failing, put);
  if (shape === 'coverage') return writeCoverageProject(dir, failing, put);
  put('package.json', JSON.stringify({ name: 'own-commands', private: true, type: 'module', scripts: { lint: 'eslint src', test: 'eslint src && node --test', typecheck: 'tsc -p tsconfig.json' } }, null, 2));
  put('eslint.config.js', "export default [{ files: ['src/**/*.js'], rules: { 'no-unused-vars': 'error', eqeqeq: 'error' } }];\n");
  typesProject(put, ['types/**/*.ts']);
  put('src/cart.js', "export function total(lines) {\n  return lines.reduce((acc, l) => acc + l.price * l.quantity, 0);\n}\n");
  for (let i = 0; i < 6; i++) {
    put(`test/t${i}.test.js`, `import assert from 'node:assert/strict';\nimport test from 'node:test';\nimport { total } from '../src/cart.js';\n\ntest('total ${i}', () => {\n  assert.equal(total([{ price: ${i + 1}, quantity: 2 }]), ${(i + 1) * 2});\n});\n`);
  }
  if (failing) put('test/t0.test.js', readFileSync(path.join(dir, 'test/t0.test.js'), 'utf8').replace(', 2);', ', 3);'));
}

/** A tsc project of real size; `bundler`: resolved as a Vite project resolves (extensionless imports, as its tests have them). */
function typesProject(put: (rel: string, text: string) => void, include: string[], bundler = false): void {
  const resolution = bundler ? { module: 'esnext', moduleResolution: 'bundler' } : { module: 'nodenext' };
  put('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'ES2022', ...resolution, strict: true, noEmit: true, skipLibCheck: true, types: [] }, include }, null, 2));
  for (let i = 0; i < MODULES; i++) {
    const dep = i > 0 ? `import { value${i - 1} } from './m${i - 1}.js';\n` : '';
    put(`types/m${i}.ts`, `${dep}export interface R${i} { id: number; name: string; total: number }\nexport const value${i}: R${i} = { id: ${i}, name: 'm${i}', total: ${i > 0 ? `value${i - 1}.total + ` : ''}${i} };\nexport function map${i}<T extends R${i}, U>(xs: readonly T[], f: (x: T) => U): U[] {\n  return xs.map(f);\n}\n`);
  }
  put('types/use.ts', `import { value${MODULES - 1} } from './m${MODULES - 1}.js';\nexport const total: number = value${MODULES - 1}.total;\n`);
}

/** The `vitest` shape: TypeScript sources, Vitest with its type tests, ESLint then Prettier as the lint. */
function writeVitestProject(dir: string, failing: boolean, put: (rel: string, text: string) => void): void {
  put('package.json', JSON.stringify({ name: 'own-commands-vitest', private: true, type: 'module', scripts: { lint: 'eslint src && prettier --check src', test: 'npm run lint && vitest run --typecheck', typecheck: 'tsc -p tsconfig.json' } }, null, 2));
  put('eslint.config.js', "export default [{ files: ['src/**/*.js'], rules: { 'no-unused-vars': 'error', eqeqeq: 'error' } }];\n");
  put('.prettierrc.json', JSON.stringify({ singleQuote: true, printWidth: 120 }) + '\n');
  put('vitest.config.ts', "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.test.ts'], typecheck: { include: ['test/**/*.test-d.ts'] } } });\n");
  // The tests are in the project, so Vitest's typecheck (which reads this tsconfig) checks the type tests.
  typesProject(put, ['types/**/*.ts', 'src/**/*.ts', 'test/**/*.ts'], true);
  put('src/cart.ts', "export interface Line {\n  price: number;\n  quantity: number;\n}\n\nexport function total(lines: Line[]): number {\n  return lines.reduce((acc, l) => acc + l.price * l.quantity, 0);\n}\n");
  put('src/util.js', 'export function same(a, b) {\n  return a === b;\n}\n');
  for (let i = 0; i < 6; i++) {
    put(`test/t${i}.test.ts`, `import { expect, test } from 'vitest';\nimport { total } from '../src/cart';\n\ntest('total ${i}', () => {\n  expect(total([{ price: ${i + 1}, quantity: 2 }])).toBe(${(i + 1) * 2});\n});\n`);
  }
  put('test/cart.test-d.ts', "import { expectTypeOf, test } from 'vitest';\nimport { total } from '../src/cart';\n\ntest('total returns a number', () => {\n  expectTypeOf(total).returns.toEqualTypeOf<number>();\n});\n");
  if (failing) put('test/t0.test.ts', readFileSync(path.join(dir, 'test/t0.test.ts'), 'utf8').replace(').toBe(2);', ').toBe(3);'));
}

/** The `coverage` shape (luxon's): Jest writing its coverage report while Prettier checks the sources, beside a tsc project. */
function writeCoverageProject(dir: string, failing: boolean, put: (rel: string, text: string) => void): void {
  put('package.json', JSON.stringify({ name: 'own-commands-coverage', private: true, type: 'commonjs', scripts: { lint: "prettier --check 'src/**/*.js' 'test/**/*.js'", test: 'jest --coverage', typecheck: 'tsc -p tsconfig.json' } }, null, 2));
  put('jest.config.js', 'module.exports = {\n  testEnvironment: "node",\n  roots: ["test"],\n  coverageDirectory: "build/coverage",\n  transform: {},\n};\n');
  typesProject(put, ['types/**/*.ts']);
  put('src/cart.js', 'function total(lines) {\n  return lines.reduce((acc, l) => acc + l.price * l.quantity, 0);\n}\n\nmodule.exports = { total };\n');
  for (let i = 0; i < 6; i++) {
    put(`test/t${i}.test.js`, `const { total } = require("../src/cart.js");\n\ntest("total ${i}", () => {\n  expect(total([{ price: ${i + 1}, quantity: 2 }])).toBe(${(i + 1) * 2});\n});\n`);
  }
  if (failing) put('test/t0.test.js', readFileSync(path.join(dir, 'test/t0.test.js'), 'utf8').replace(').toBe(2);', ').toBe(3);'));
}

/** The own commands run once, one after another; their wall in ms. */
export function ownCommandsMs(dir: string): number {
  const t = performance.now();
  for (const c of OWN_COMMANDS) spawnSync(c, { cwd: dir, shell: true, stdio: 'ignore', env: { ...process.env, CI: '1' } });
  return performance.now() - t;
}

/** One `check` pass as a real CLI process; its wall in ms and whether it was green. */
export function checkPassMs(cli: string, dir: string, storage: string): { ms: number; green: boolean } {
  const t = performance.now();
  const r = spawnSync(process.execPath, [cli, 'check', '--cwd', dir, '--storage', storage, '--json'], { encoding: 'utf8' });
  const ms = performance.now() - t;
  return { ms, green: r.status === 0 };
}

/** One Claude Code Stop through `fix-until-green hook` (the worker on, as installed); its wall in ms and the answer's line. */
export function stopMs(cli: string, dir: string, storageBase: string): { ms: number; answer: string; byWorker: boolean } {
  const input = JSON.stringify({ session_id: 'bench', transcript_path: null, cwd: dir, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done.' });
  const t = performance.now();
  const r = spawnSync(process.execPath, [cli, 'hook', '--host', 'claude'], { input, encoding: 'utf8', env: { ...process.env, FIX_UNTIL_GREEN_STORAGE: storageBase } });
  return { ms: performance.now() - t, answer: r.stdout.trim().slice(0, 80), byWorker: /answered by the folder's worker/.test(r.stderr) };
}

/**
 * Waits (untimed) until the folder's worker has its type checker built again after a stop, as it
 * is by the next stop of a real session, where the agent's turn (a model call or more, then its
 * edits) lasts longer than that; at most `maxMs`. The time waited, for the log.
 */
export async function warmWorker(storageBase: string, maxMs: number): Promise<number> {
  const t = performance.now();
  const logOf = (): string => {
    const folder = existsSync(storageBase) ? readdirSync(storageBase).find((n) => existsSync(path.join(storageBase, n, 'worker', 'worker.log'))) : undefined;
    return folder === undefined ? '' : readFileSync(path.join(storageBase, folder, 'worker', 'worker.log'), 'utf8');
  };
  const calls = (l: string): number => l.split('\n').filter((x) => / call answered /.test(x)).length;
  const warmed = (l: string): number => l.split('\n').filter((x) => /warm for the next stop|warming failed/.test(x)).length;
  while (performance.now() - t < maxMs) {
    const l = logOf();
    if (calls(l) > 0 && warmed(l) >= calls(l)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return performance.now() - t;
}

export function stopWorkerOf(cli: string, dir: string, storageBase: string): void {
  spawnSync(process.execPath, [cli, 'hook', '--stop-worker', '--cwd', dir], { env: { ...process.env, FIX_UNTIL_GREEN_STORAGE: storageBase }, stdio: 'ignore' });
}

/**
 * A one-file edit that keeps the verdict (a comment in the source under test), made as an agent
 * makes it: its Edit tool's PreToolUse call reaches the hook first (the hook checkpoints the file
 * and records it as changed, which is what lets the next Stop run its checks staged), then the
 * file is written. Not timed.
 */
export function touchOneFile(cli: string, dir: string, storageBase: string, n: number, shape: OwnShape = 'node'): void {
  const f = path.join(dir, EDITED[shape]);
  const input = JSON.stringify({ session_id: 'bench', cwd: dir, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: f } });
  spawnSync(process.execPath, [cli, 'hook', '--host', 'claude'], { input, encoding: 'utf8', env: { ...process.env, FIX_UNTIL_GREEN_STORAGE: storageBase } });
  writeFileSync(f, `${readFileSync(f, 'utf8')}// edit ${n}\n`);
}
