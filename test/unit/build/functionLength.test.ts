// Issue 12's bound: no function in src/core over ~80 lines, and (issue 26) none in the front ends
// either (src/cli, src/vscode): a front end words what the launcher decided, and a long command
// handler is where a second copy of preflight hides. A long function is where a step's many concerns
// hide (Aider's 200-line send_message), so the bound is checked on the AST, not by habit.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { REPO } from '../../support/fixtures';

const MAX_LINES = 80;

interface FunctionLength {
  where: string;
  name: string;
  lines: number;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

function nameOf(node: ts.FunctionLikeDeclaration, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) {
    const cls = node.parent;
    return `${cls.name?.text ?? '(class)'}.constructor`;
  }
  if (node.name) {
    const own = node.name.getText(sf);
    const cls = node.parent;
    return ts.isClassLike(cls) && cls.name ? `${cls.name.text}.${own}` : own;
  }
  // An anonymous function or arrow takes the name it is bound to, if any.
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(sf);
  }
  return ts.isArrowFunction(node) ? '(arrow)' : '(function)';
}

// Every function-like node with a body, measured from its first token to its closing brace,
// both lines counted (leading comments excluded). Nested functions are measured on their own too.
function functionLengths(fileName: string, text: string): FunctionLength[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const start = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(fn.getEnd()).line;
      found.push({ where: `${fileName}:${start + 1}`, name: nameOf(fn, sf), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('function length in src/core, src/cli and src/vscode', () => {
  it('measures functions, methods, arrows and constructors, so an over-long one of each kind is caught', () => {
    const body = (n: number): string => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const src = [
      `export function longFn(): void {\n${body(81)}\n}`,
      `class Box {\n  constructor() {\n${body(81)}\n  }\n  method(): void {\n${body(81)}\n  }\n  short(): void {\n${body(80)}\n  }\n}`,
      `export const arrow = (): void => {\n${body(81)}\n};`,
    ].join('\n');
    const long = functionLengths('synthetic.ts', src).filter((f) => f.lines > MAX_LINES);
    assert.deepEqual(long.map((f) => `${f.name} ${f.lines}`).sort(), ['Box.constructor 81', 'Box.method 81', 'arrow 81', 'longFn 81']);
  });

  for (const [folder, least] of [['core', 100], ['cli', 40], ['vscode', 100]] as const) {
    it(`has no function, method, arrow or constructor over ${MAX_LINES} lines in src/${folder}`, () => {
      const root = path.join(REPO, 'src', folder);
      const all = tsFiles(root).flatMap((f) => functionLengths(path.relative(REPO, f), readFileSync(f, 'utf8')));
      assert.ok(all.length > least, `expected to measure the functions of src/${folder}, found ${all.length}`);
      const over = all.filter((f) => f.lines > MAX_LINES).sort((a, b) => b.lines - a.lines);
      const longest = [...all].sort((a, b) => b.lines - a.lines).slice(0, 5);
      assert.equal(
        over.length,
        0,
        `functions over ${MAX_LINES} lines (split them):\n${over.map((f) => `  ${f.lines} ${f.name} (${f.where})`).join('\n')}\nlongest:\n${longest.map((f) => `  ${f.lines} ${f.name} (${f.where})`).join('\n')}`,
      );
    });
  }
});
