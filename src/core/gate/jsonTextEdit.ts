// Edits of a JSON (or JSONC) file as text, at the places that change, and nowhere else (issue 36).
// jsonc-parser finds the nodes; the edits are ours, because its own `modify` reformats the lines it
// touches (a one-line file becomes pretty, a `]` moves), and a user's file must come back byte for
// byte after `hooks install` then `hooks uninstall`. So each insertion has an exact inverse:
//
// - a member appended after a sibling is `,` + gap + member, inserted right after the sibling's end;
//   removing a member that has a sibling before it removes from that sibling's end to its own end;
// - a member put in an empty container is eol + indent + member + eol + the container's indent,
//   inserted right after `{` / `[`; removing an only member removes exactly that when it is there.
//
// A container on one line (`{"a":1}`) gets members on that line (`,"b":2`), a pretty one gets them
// on their own lines, indented like their siblings.
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import type { JSONPath, Node } from 'jsonc-parser';

interface Style {
  eol: string;
  /** One level of indentation. */
  unit: string;
}

export function styleOf(text: string): Style {
  const indent = /\n([ \t]+)["{[\]}/]/.exec(text)?.[1] ?? '  ';
  return { eol: text.includes('\r\n') ? '\r\n' : '\n', unit: indent.includes('\t') ? '\t' : indent };
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

function startsItsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*$/.test(text.slice(start, offset));
}

/** `value` as JSON on lines indented from `indent` (its first line unindented). */
function pretty(value: unknown, indent: string, s: Style): string {
  return JSON.stringify(value, null, s.unit)
    .split('\n')
    .map((l, i) => (i === 0 ? l : indent + l))
    .join(s.eol);
}

function member(key: string | undefined, json: string, colon: string): string {
  return key === undefined ? json : `${JSON.stringify(key)}${colon}${json}`;
}

export function nodeAt(text: string, p: JSONPath): Node | undefined {
  const root = parseTree(text);
  return root ? findNodeAtLocation(root, p) : undefined;
}

/** The text of the gap the only member of an empty container would get: [before, after]. */
function onlyMemberGaps(text: string, container: Node, s: Style): [string, string] {
  const outer = lineIndent(text, container.offset);
  return [s.eol + outer + s.unit, s.eol + outer];
}

/**
 * Adds a member at the end of the object or array at `p` (`key` for an object's property): the
 * container must exist. Its other bytes are kept.
 */
export function appendMember(text: string, p: JSONPath, key: string | undefined, value: unknown): string {
  const c = nodeAt(text, p);
  if (!c || (c.type !== 'object' && c.type !== 'array')) throw new Error(`no ${key === undefined ? 'array' : 'object'} at ${JSON.stringify(p)}`);
  const s = styleOf(text);
  const kids = c.children ?? [];
  const last = kids.at(-1);
  const body = text.slice(c.offset, c.offset + c.length);
  if (!last) {
    const [before, after] = onlyMemberGaps(text, c, s);
    const indent = before.slice(s.eol.length);
    const at = c.offset + 1;
    return text.slice(0, at) + before + member(key, pretty(value, indent, s), ': ') + after + text.slice(at);
  }
  const end = last.offset + last.length;
  if (!body.includes('\n')) {
    // One line: the member joins it, spaced as the container spaces its own.
    const space = /,\s/.test(body) ? ' ' : '';
    const colon = /"\s*:\s/.test(body) ? ': ' : ':';
    return `${text.slice(0, end)},${space}${member(key, JSON.stringify(value), colon)}${text.slice(end)}`;
  }
  const indent = startsItsLine(text, last.offset) ? lineIndent(text, last.offset) : lineIndent(text, c.offset) + s.unit;
  return `${text.slice(0, end)},${s.eol}${indent}${member(key, pretty(value, indent, s), ': ')}${text.slice(end)}`;
}

/**
 * Removes the member `i` of the container at `p` (a property node, or an array element), with the
 * separator and gap that joined it: the exact inverse of appendMember.
 */
export function removeMember(text: string, p: JSONPath, i: number): string {
  const c = nodeAt(text, p);
  const kids = c?.children ?? [];
  const el = kids[i];
  if (!c || !el) return text;
  const prev = kids[i - 1];
  const next = kids[i + 1];
  const end = el.offset + el.length;
  if (prev) return text.slice(0, prev.offset + prev.length) + text.slice(end);
  if (next) return text.slice(0, el.offset) + text.slice(next.offset);
  const s = styleOf(text);
  const open = c.offset + 1;
  const close = c.offset + c.length - 1;
  const [before, after] = onlyMemberGaps(text, c, s);
  if (text.slice(open, el.offset) === before && text.startsWith(after, end)) return text.slice(0, open) + text.slice(end + after.length);
  // Laid out by someone else: the container is left empty, and whatever else was inside it kept.
  const rest = text.slice(end, close);
  const comma = /^\s*,/.exec(rest)?.[0].length ?? 0;
  if (/^\s*$/.test(text.slice(open, el.offset)) && /^\s*$/.test(rest.slice(comma))) return text.slice(0, open) + text.slice(close);
  return text.slice(0, el.offset) + text.slice(end + comma);
}
