// A model reply as lines, with its fences. Models nest fences: a ```diff inside a ```markdown that
// wraps the whole answer, or a ```jsx opened, the path written, and ```jsx opened again. A fence
// line with a language inside an open fence opens a nested one; a bare fence line closes the
// innermost. A diff fence nests nothing: its lines carry a marker, and ` ```ts` there is context.

export const FENCE = /^\s*(`{3,}|~{3,})(.*)$/;

/** Fence languages whose body is a diff (or plain text that may hold one). */
export const DIFF_FENCES = new Set(['', 'diff', 'patch', 'udiff', 'git', 'gitdiff', 'git-diff', 'text', 'txt', 'plain', 'plaintext']);
const DIFF_BODIES = new Set(['diff', 'patch', 'udiff', 'gitdiff', 'git-diff']);

export interface ReplyLines {
  lines: string[];
  /** Line i is a fence opener or closer. */
  fence: boolean[];
  /** Line i opens a fence. */
  opens: boolean[];
  /** For a fence opener, the line that closes it (-1 when none does). */
  closer: number[];
  /** Line i is inside a fenced block (fence lines themselves excluded). */
  inFence: boolean[];
  /** The language of the innermost fence line i is inside (lower case, '' when none given), or null outside fences. */
  lang: (string | null)[];
  /** The first line of a fence still open when the reply ends (every later line is inside it), or -1. */
  unclosedFrom: number;
  used: boolean[];
}

/** ```diff, ``` ts, ```typescript title="a.ts", ```diff:src/a.ts: the first word, lower case. */
export function fenceLang(info: string): string {
  return (/^\s*([\w+#.-]*)/.exec(info)?.[1] ?? '').toLowerCase();
}

interface Open {
  at: number;
  marker: string;
  lang: string;
  indent: number;
}

export function scanReply(reply: string): ReplyLines {
  const lines = reply.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  const n = lines.length;
  const fence: boolean[] = new Array<boolean>(n).fill(false);
  const opens: boolean[] = new Array<boolean>(n).fill(false);
  const closer: number[] = new Array<number>(n).fill(-1);
  const inFence: boolean[] = new Array<boolean>(n).fill(false);
  const lang: (string | null)[] = new Array<string | null>(n).fill(null);
  const stack: Open[] = [];
  lines.forEach((line, i) => {
    const m = FENCE.exec(line);
    const top = stack[stack.length - 1];
    if (m && top === undefined) {
      stack.push({ at: i, marker: m[1]!, lang: fenceLang(m[2]!), indent: line.indexOf(m[1]!) });
      fence[i] = opens[i] = true;
      return;
    }
    if (m && top !== undefined) {
      const info = m[2]!.trim();
      // In a diff's body, ` ```` ` indented otherwise than the opener is a context line of a markdown file.
      const closes = !DIFF_BODIES.has(top.lang) || line.indexOf(m[1]!) === top.indent;
      if (info === '' && closes && m[1]![0] === top.marker[0] && m[1]!.length >= top.marker.length) {
        stack.pop();
        fence[i] = true;
        closer[top.at] = i;
        return;
      }
      // A language after the marker can only open: a nested fence, unless this is a diff's body.
      if (info !== '' && !DIFF_BODIES.has(top.lang) && /^[\w+#.-]/.test(info) && line.startsWith(m[1]!)) {
        stack.push({ at: i, marker: m[1]!, lang: fenceLang(m[2]!), indent: 0 });
        fence[i] = opens[i] = true;
        return;
      }
    }
    if (top !== undefined) {
      inFence[i] = true;
      lang[i] = top.lang;
    }
  });
  return { lines, fence, opens, closer, inFence, lang, unclosedFrom: stack[0]?.at ?? -1, used: lines.map(() => false) };
}
