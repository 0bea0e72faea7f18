// Path lines as models write them: the line before an edit (`**src/a.ts**`, "### `src/a.ts`",
// `File: src/a.ts:`), or a fence's info string (```ts src/a.ts). A fence's language is never a path.

/**
 * The path a fence's info string names: ```src/a.ts, ```ts src/a.ts, ```typescript:src/a.ts,
 * ```ts title="src/a.ts"; null for a bare language (```python, ```jsx, ```c++).
 */
export function fenceInfoPath(info: string): string | null {
  for (const raw of info.trim().split(/[\s:]+/)) {
    const w = raw.replace(/^(?:title|file(?:name)?|path)=/i, '').replace(/^["'`]|["'`]$/g, '');
    if (/^[\w@.~-][\w@.~/\\-]*$/.test(w) && (/[/\\]/.test(w) || /\.[A-Za-z0-9]+$/.test(w)) && !/^\.+$/.test(w)) return w;
  }
  return null;
}

/** `**src/a.ts**`, "### `src/a.ts`", `File: src/a.ts:` and the like, down to the path. */
export function cleanPathLine(line: string): string | null {
  // "Update `src/my file.ts`:" — a backticked path is taken whole, spaces and all.
  const quoted = /`([^`]*[./][^`]*)`/.exec(line);
  if (quoted && !/[<>|]/.test(quoted[1]!) && quoted[1]!.trim() !== '') return quoted[1]!.trim();
  let s = line.trim();
  s = s.replace(/^#+\s*/, '').replace(/^(?:\/\/|#|--|;)\s*/, '');
  s = s.replace(/^(?:file(?:name)?|path)\s*:\s*/i, '');
  const strip = (t: string): string =>
    t
      .replace(/^[*_`'"(]+/, '')
      .replace(/[*_`'")]+$/, '')
      .replace(/[:,;.]+$/, '')
      .replace(/[*_`'")]+$/, '')
      .trim();
  s = strip(s);
  if (s === '') return null;
  if (/\s/.test(s)) {
    // "Update src/a.ts:" — take the last word that looks like a path.
    const words = s.split(/\s+/).map(strip).filter((w) => /[./]/.test(w) && !/^\.+$/.test(w));
    if (words.length === 0) return null;
    s = words[words.length - 1]!;
  }
  if (/[<>|]/.test(s) || !/[\w]/.test(s)) return null;
  return s;
}

/** Words a line may hold besides the path and still be a path line ("Here is the updated `src/a.ts`:"). */
const LEAD_WORDS = new Set(
  'here heres is are the updated update full complete entire whole new modified changed fixed corrected final revised rewritten file version of code content contents for with changes create created replace replaced below this'.split(' '),
);

/**
 * A line that names one file and says nothing else: bare, in backticks or bold, as a heading or a
 * list item, after `File:`, or after a few words such as "Here is the updated". Null for a sentence
 * that mentions a path ("In `src/a.ts`, `add` is wrong"), a command (`npm test`) or a language word.
 */
export function strictPathLine(raw: string): string | null {
  if (FENCE_LINE.test(raw)) return null;
  // `<summary>File: src/a.ts</summary>` over a fenced listing in a <details> block.
  const line = raw.replace(/<\/?(?:summary|b|strong|code|em)>/gi, ' ');
  const path = cleanPathLine(line);
  if (path === null || !/[A-Za-z]/.test(path) || /:\/\//.test(path) || /^\d[\d.]*$/.test(path)) return null;
  if (!/[/\\]/.test(path) && !/\.[A-Za-z0-9]+$/.test(path)) return null;
  let rest = line.replace(path, ' ').toLowerCase();
  rest = rest.replace(/^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+)?/, ' ').replace(/\b(?:file(?:name)?|path)\s*:/g, ' ');
  rest = rest.replace(/here's/g, 'heres').replace(/[*_`'"():,.;!-]/g, ' ');
  return rest.split(/\s+/).every((w) => w === '' || LEAD_WORDS.has(w)) ? path : null;
}

const FENCE_LINE = /^\s*(?:`{3,}|~{3,})/;

/** Words of a sentence that announce part of a file, not the whole of it ("Add this at the end of `a.ts`:"). */
const PART_WORDS = /\b(?:add|adds|adding|insert|inserting|append|appending|snippet|excerpt|part|section|function|method|change|lines?|after|before|end|top|bottom|top-level|following|like|e\.g|example|run|running|command|output)\b/i;

/**
 * A sentence leading into a fence whose last words, before its closing colon, are one file's path:
 * "The fixed component, in `client/src/App.js`:", "Here's what goes into src/x.ts:". Null when the
 * line names more than one path, names it mid-sentence ("In `a.ts`, `add` is wrong:"), or speaks of
 * part of a file ("Add this after `init` in `a.ts`:").
 */
export function proseLeadPath(raw: string): string | null {
  if (FENCE_LINE.test(raw)) return null;
  const line = raw.trim().replace(/[*_]+/g, '');
  const m = /(?:^|\s)`?([\w@.~-][\w@.~/\\-]*)`?\s*:$/.exec(line);
  if (!m) return null;
  const path = m[1]!;
  if (!/[A-Za-z]/.test(path) || (!/[/\\]/.test(path) && !/\.[A-Za-z][A-Za-z0-9]*$/.test(path)) || /^\.+$/.test(path)) return null;
  const before = line.slice(0, m.index);
  // One path only: any other backticked or path-looking word makes the line a sentence about code.
  if (/`/.test(before) || before.split(/\s+/).some((w) => /[/\\]/.test(w) || /\w\.[A-Za-z]{1,4}[,;:)]?$/.test(w))) return null;
  if (PART_WORDS.test(before)) return null;
  return path;
}
