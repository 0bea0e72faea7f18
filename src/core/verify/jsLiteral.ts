// The value a JavaScript config module exports, when the module is nothing but a literal: `module.exports
// = { … }` or `export default { … }` (optionally through one `const config = { … }`), whose values are
// strings, numbers, booleans, null, arrays and objects. Such a module evaluates to exactly that value
// whatever runs it, so a setting read from it is certain. Anything else (a call, a spread, a variable,
// a template, a function) and the answer is undefined: the module must be run to know its value, and
// we never run a project's code to plan how to run it.

type Literal = string | number | boolean | null | Literal[] | { [k: string]: Literal };

/** Thrown inside the reader when the text is no literal module; caught at its one entry point. */
class NotLiteral extends Error {}

/** Tokens of the module text: punctuation, strings (decoded), numbers, words; comments dropped. */
function tokenize(text: string): (string | { s: string } | { n: number })[] {
  const out: (string | { s: string } | { n: number })[] = [];
  const re = /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|[A-Za-z_$][\w$]*|[{}[\]:,;=.]/y;
  let i = 0;
  while (i < text.length) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) throw new NotLiteral();
    i = re.lastIndex;
    const t = m[0];
    if (/^\s|^\/[/*]/.test(t)) continue;
    if (t.startsWith('"')) out.push({ s: JSON.parse(t) as string });
    else if (t.startsWith("'")) out.push({ s: JSON.parse(`"${t.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string });
    else if (/^-?\d/.test(t)) out.push({ n: Number(t) });
    else out.push(t);
  }
  return out;
}

/** Reads one literal value from the tokens at `at.i`. */
function value(toks: ReturnType<typeof tokenize>, at: { i: number }): Literal {
  const t = toks[at.i++];
  if (t === undefined) throw new NotLiteral();
  if (typeof t === 'object') return 's' in t ? t.s : t.n;
  if (t === 'true' || t === 'false') return t === 'true';
  if (t === 'null') return null;
  const close = t === '[' ? ']' : t === '{' ? '}' : undefined;
  if (close === undefined) throw new NotLiteral();
  const arr: Literal[] = [];
  const obj: Record<string, Literal> = {};
  while (toks[at.i] !== close) {
    if (t === '[') {
      arr.push(value(toks, at));
    } else {
      const k = toks[at.i++];
      const key = typeof k === 'object' ? ('s' in k ? k.s : String(k.n)) : k;
      // `__proto__` would set the object's prototype, not a key: no literal config uses it.
      if (key === undefined || key === '__proto__' || !/^[^{}[\]:,;=.]/.test(key) || toks[at.i++] !== ':') throw new NotLiteral();
      obj[key] = value(toks, at);
    }
    if (toks[at.i] === ',') at.i++;
    else if (toks[at.i] !== close) throw new NotLiteral();
  }
  at.i++;
  return t === '[' ? arr : obj;
}

/** The literal a config module exports, or undefined when it is anything but a literal module. */
export function exportedLiteral(text: string): Literal | undefined {
  try {
    const toks = tokenize(text);
    const at = { i: 0 };
    const word = (...ws: string[]): boolean => ws.every((w, k) => toks[at.i + k] === w) && ((at.i += ws.length), true);
    if (typeof toks[0] === 'object' && 's' in toks[0] && toks[0].s === 'use strict') at.i += toks[1] === ';' ? 2 : 1;
    let named: { name: string; value: Literal } | undefined;
    const decl = toks[at.i];
    if (decl === 'const' || decl === 'let' || decl === 'var') {
      const name = toks[at.i + 1];
      if (typeof name !== 'string' || toks[at.i + 2] !== '=') return undefined;
      at.i += 3;
      named = { name, value: value(toks, at) };
      word(';');
    }
    if (!word('module', '.', 'exports', '=') && !word('export', 'default')) return undefined;
    const v = named !== undefined && toks[at.i] === named.name ? (at.i++, named.value) : value(toks, at);
    word(';');
    return at.i === toks.length ? v : undefined;
  } catch (e) {
    if (e instanceof NotLiteral || e instanceof SyntaxError) return undefined;
    throw e;
  }
}
