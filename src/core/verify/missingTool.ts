// Whether a script's tools are installed, read before a check is made of it: a script whose first
// program is installed nowhere (node_modules/.bin up the tree, PATH) is reported, not run.
import { findExecutable } from './executable';
import { resolveScript } from './infer';

/** Shell words that are no program to look for. */
const BUILTINS = new Set(['cd', 'exit', 'export', 'set', 'unset', 'source', '.', ':', 'true', 'false', 'test', '[', 'echo', 'exec', 'eval', 'wait', 'trap', 'shift', 'read', 'printf', 'if', 'then', 'fi', 'for', 'do', 'done', 'while']);

/** The first program a script's steps run that is installed nowhere (node_modules/.bin up the tree, PATH), or undefined. */
export function missingTool(scripts: Record<string, string>, name: string, dir: string): string | undefined {
  for (const step of resolveScript(scripts, name)) {
    if (step.fanOut !== undefined) continue;
    const head = /^[A-Za-z0-9@._-]+$/.exec(step.command.trim().split(/\s+/)[0] ?? '')?.[0];
    if (head === undefined || BUILTINS.has(head) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(head)) continue;
    if (findExecutable(head, dir) === undefined) return head;
  }
  return undefined;
}
