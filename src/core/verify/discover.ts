// Finds a workspace's checks when none are configured (DESIGN §4): its own tsc, eslint and test script.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckSpec } from '../types';
import { parserForScript } from './infer';
import { findExecutable } from './verifier';

export interface Discovery {
  checks: CheckSpec[];
  /** Why each check was added or left out, for `check` and the run's log. */
  notes: string[];
}

const ESLINT_FLAT = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
const ESLINT_LEGACY = ['.eslintrc', '.eslintrc.js', '.eslintrc.cjs', '.eslintrc.yaml', '.eslintrc.yml', '.eslintrc.json'];
/** What `npm init` writes when there are no tests: not a check. */
const NPM_PLACEHOLDER = /no test specified/;

interface PackageJson {
  scripts?: Record<string, string>;
  eslintConfig?: unknown;
}

function readPackageJson(root: string, notes: string[]): PackageJson | undefined {
  const file = path.join(root, 'package.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as PackageJson) : undefined;
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    notes.push(`package.json is not valid JSON (${e.message}): its scripts were not looked at`);
    return undefined;
  }
}

export function discoverChecks(root: string): Discovery {
  const checks: CheckSpec[] = [];
  const notes: string[] = [];
  const has = (f: string): boolean => existsSync(path.join(root, f));
  const own = (exe: string): boolean => findExecutable(exe, root) !== undefined;
  const pkg = readPackageJson(root, notes);

  if (has('tsconfig.json')) {
    if (own('tsc')) {
      checks.push({ name: 'tsc', command: 'tsc --noEmit -p tsconfig.json', parser: 'tsc' });
      notes.push('tsc: tsconfig.json found; type check with the workspace\'s own tsc');
    } else {
      notes.push('tsc: tsconfig.json found but no tsc is installed (node_modules/.bin or PATH): not checked');
    }
  }

  const eslintConfig = [...ESLINT_FLAT, ...ESLINT_LEGACY].find(has) ?? (pkg?.eslintConfig !== undefined ? 'package.json#eslintConfig' : undefined);
  if (eslintConfig !== undefined) {
    if (own('eslint')) {
      checks.push({ name: 'eslint', command: 'eslint --format json .', parser: 'eslint' });
      notes.push(`eslint: ${eslintConfig} found; lint with the workspace's own eslint, JSON report`);
    } else {
      notes.push(`eslint: ${eslintConfig} found but no eslint is installed: not checked`);
    }
  }

  const test = pkg?.scripts?.test;
  if (typeof test === 'string' && test.trim() !== '') {
    if (NPM_PLACEHOLDER.test(test)) {
      notes.push('test: package.json\'s test script is npm\'s "no test specified" placeholder: not a check');
    } else {
      const parser = parserForScript(pkg!.scripts!, 'test');
      checks.push({ name: 'test', command: 'npm test --silent', parser });
      notes.push(`test: package.json scripts.test ("${test}"), read with the ${parser} parser`);
    }
  }
  if (checks.length === 0) notes.push('nothing found to check: no tsconfig.json, ESLint config or test script; set fixUntilGreen.checks');
  return { checks, notes };
}

/** The configured checks, or the discovered ones when none are configured. */
export function resolveChecks(root: string, configured: readonly CheckSpec[]): Discovery & { discovered: boolean } {
  if (configured.length > 0) return { checks: [...configured], notes: [], discovered: false };
  return { ...discoverChecks(root), discovered: true };
}
