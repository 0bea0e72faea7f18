// The value a JavaScript config module exports, when the module is nothing but a literal: `module.exports
// = { … }` or `export default { … }` (optionally through one `const config = { … }`), whose values are
// strings, numbers, booleans, null, arrays and objects. Such a module evaluates to exactly that value
// whatever runs it, so a setting read from it is certain. Anything else (a call, a spread, a variable,
// a template, a function, a second statement) and the answer is undefined: the module must be run to
// know its value, and we never run a project's code to plan how to run it. The module is parsed by
// acorn (the parser ESLint's espree is built on); only the shape of its tree is read here.
import type { Expression, ModuleDeclaration, Node, Program, Statement } from 'acorn';
import { parse } from 'acorn';

type Literal = string | number | boolean | null | Literal[] | { [k: string]: Literal };

/** Thrown inside the reader when a node is no literal; caught at its one entry point. */
class NotLiteral extends Error {}

/** The literal an expression is, or NotLiteral. */
function literal(node: Node | null): Literal {
  const n = node as Expression | null;
  if (n?.type === 'Literal' && (n.value === null || ['string', 'number', 'boolean'].includes(typeof n.value)) && !('regex' in n && n.regex) && !('bigint' in n && n.bigint)) return n.value as Literal;
  if (n?.type === 'UnaryExpression' && n.operator === '-' && n.argument.type === 'Literal' && typeof n.argument.value === 'number') return -n.argument.value;
  if (n?.type === 'ArrayExpression') return n.elements.map((e) => (e === null || e.type === 'SpreadElement' ? fail() : literal(e)));
  if (n?.type !== 'ObjectExpression') return fail();
  const out: Record<string, Literal> = {};
  for (const p of n.properties) {
    if (p.type !== 'Property' || p.kind !== 'init' || p.computed || p.method || p.shorthand) return fail();
    const key = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' && (typeof p.key.value === 'string' || typeof p.key.value === 'number') ? String(p.key.value) : fail();
    // `__proto__: x` sets the object's prototype, not a key: no literal config uses it.
    if (key === '__proto__') return fail();
    out[key] = literal(p.value);
  }
  return out;
}

function fail(): never {
  throw new NotLiteral();
}

/** The module's statements, or undefined where it does not parse (as a module, then as a script). */
function statements(text: string): (Statement | ModuleDeclaration)[] | undefined {
  for (const sourceType of ['module', 'script'] as const) {
    try {
      return (parse(text, { ecmaVersion: 'latest', sourceType, allowHashBang: true }) as Program).body;
    } catch {
      // a syntax error in this mode: the other, or nothing
    }
  }
  return undefined;
}

/** What `s` exports (`module.exports = X`, `export default X`), or undefined where it is no such statement. */
function exported(s: Statement | ModuleDeclaration): Expression | undefined {
  if (s.type === 'ExportDefaultDeclaration') return s.declaration.type.endsWith('Declaration') ? undefined : (s.declaration as Expression);
  if (s.type !== 'ExpressionStatement' || s.expression.type !== 'AssignmentExpression' || s.expression.operator !== '=') return undefined;
  const left = s.expression.left;
  const isModuleExports = left.type === 'MemberExpression' && !left.computed && left.object.type === 'Identifier' && left.object.name === 'module' && left.property.type === 'Identifier' && left.property.name === 'exports';
  return isModuleExports ? s.expression.right : undefined;
}

/** The literal a config module exports, or undefined when it is anything but a literal module. */
export function exportedLiteral(text: string): Literal | undefined {
  const body = statements(text)?.filter((s) => !(s.type === 'ExpressionStatement' && 'directive' in s && s.directive !== undefined));
  if (body === undefined || body.length === 0 || body.length > 2) return undefined;
  try {
    let named: { name: string; value: Literal } | undefined;
    const first = body[0]!;
    if (body.length === 2) {
      if (first.type !== 'VariableDeclaration' || first.declarations.length !== 1) return undefined;
      const d = first.declarations[0]!;
      if (d.id.type !== 'Identifier') return undefined;
      named = { name: d.id.name, value: literal(d.init ?? null) };
    }
    const value = exported(body[body.length - 1]!);
    if (value === undefined) return undefined;
    if (named !== undefined && value.type === 'Identifier') return value.name === named.name ? named.value : undefined;
    return literal(value);
  } catch (e) {
    if (e instanceof NotLiteral) return undefined;
    throw e;
  }
}
