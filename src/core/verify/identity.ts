// The failure identity: what stays the same while a failure stays the same (DESIGN §4).
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import * as os from 'node:os';
import stripAnsi from 'strip-ansi';
import type { Failure } from '../types';
import { CUT_MARK } from './cutMark';

export interface NormalizeContext {
  /** Absolute workspace root; removed from messages. */
  root: string;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const spellingCache = new Map<string, string[]>();

function spellings(dir: string): string[] {
  const cached = spellingCache.get(dir);
  if (cached) return cached;
  const set = new Set<string>();
  const add = (p: string): void => {
    const fwd = p.replace(/\\/g, '/').replace(/\/+$/, '');
    if (fwd.length > 1) set.add(fwd);
  };
  add(dir);
  try {
    add(realpathSync(dir));
  } catch (e) {
    // A root that is not on this machine (output parsed elsewhere) has only the spelling given.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  // Longest first, so /private/var/x is removed before /var/x could leave `/private` behind.
  const out = [...set].sort((a, b) => b.length - a.length);
  spellingCache.set(dir, out);
  return out;
}

// A stack frame: `at fn (file:l:c)`, `at file:l:c`, `at new X (<anonymous>)`, Vitest's `❯ file:l:c`.
const STACK_FRAME = /^\s*(?:at\s+(?:.*\(.*\)|\S+:\d+(?::\d+)?|async\s.*|new\s.*)|❯\s+\S.*:\d+(?::\d+)?)\s*$/;
// A frame printed without `at` (node:test's TAP YAML `stack: |-`, ava's): `fn (file:l:c)`, a bare `file:///x.js:l:c`.
const BARE_FRAME = /^\s*(?:(?:async\s+)?[\w$.<>[\]]+(?:\s\[as [\w$]+\])?\s+\((?:file:\/\/|node:|\/|[A-Za-z]:[\\/])[^()]*:\d+:\d+\)|(?:file:\/\/|\/|node:)\S+:\d+:\d+)\s*$/;

// Segments of an absolute path: no whitespace, quotes, brackets or colons.
const SEG = String.raw`[^\s/'"()\[\]{}<>:,;` + '`' + String.raw`]+`;
const ABS_PATH = new RegExp(String.raw`(^|[\s'"(\[=:,` + '`' + String.raw`])((?:[A-Za-z]:)?(?:/${SEG})+)`, 'g');

function decodeUrlPath(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch (e) {
    // A lone `%` that is no escape: the URL's text is the best spelling there is.
    if (e instanceof URIError) return p;
    throw e;
  }
}

/** Folders that hold only temporary things on every system, whatever `os.tmpdir()` says here. */
const TEMP_ROOTS = ['/tmp', '/var/tmp', '/private/tmp', '/private/var/tmp', '/dev/shm'];
// macOS's per-user temp folder: /var/folders/xx/yyyy/T (and its /private spelling).
const MAC_TEMP = /(?:\/private)?\/var\/folders\/[^/\s]+\/[^/\s]+\/T/g;

/** Keys whose numbers are clock readings or spans: `time`, `start_time`, `created_at`, `actualStartTime`, `startedAt`, `durationMs`. */
function isTimeKey(key: string): boolean {
  return /^(?:[\w$]*_)?(?:time|timestamp|duration|elapsed|runtime|started|ended|start|end|ts|at|ms)$/i.test(key) || /[a-z0-9](?:Time|Timestamp|Duration|Elapsed|Runtime|Started|Ended|Start|End|At|Ms)$/.test(key);
}

/**
 * Removes what changes without the failure changing (DESIGN §4): ANSI, stack frames, the workspace
 * root and other absolute paths (temp dirs go entirely), line and column numbers, durations,
 * timestamps, hex addresses, UUIDs, seeds, PIDs, ephemeral ports, and whitespace runs.
 */
export function normalizeMessage(message: string, ctx: NormalizeContext): string {
  let m = stripAnsi(message).replace(/\r\n?/g, '\n').replace(new RegExp(CUT_MARK.source, 'g'), '[output cut]');
  m = m
    .split('\n')
    .filter((l) => !STACK_FRAME.test(l) && !BARE_FRAME.test(l))
    .join('\n');
  // file:// URLs are paths (with %-escapes: a space is `%20`), then made relative as any path.
  m = m.replace(/file:\/\/(\/?[A-Za-z]:|(?=\/))(\S*)/g, (_all, drive: string, rest: string) => decodeUrlPath(drive.replace(/^\//, '') + rest)).replace(/\\/g, '/');
  if (ctx.root) {
    for (const root of spellings(ctx.root)) {
      m = m.split(root + '/').join('').replace(new RegExp(escapeRegExp(root) + '(?![\\w.-])', 'g'), '.');
    }
  }
  m = m.replace(MAC_TEMP, '/tmp');
  for (const tmp of [...new Set([...spellings(os.tmpdir()), ...TEMP_ROOTS])].sort((a, b) => b.length - a.length)) {
    // A temp dir's own name is random (mkdtemp): `<tmp>` and what lies under it.
    m = m.replace(new RegExp(escapeRegExp(tmp) + '/' + SEG, 'g'), '<tmp>');
  }
  m = m.replace(ABS_PATH, (_all, pre: string, p: string) => {
    if (p === '/' || !p.includes('/', 1)) return pre + p; // `/x`: a lone segment, more likely a regex or a unit
    const nm = p.lastIndexOf('/node_modules/');
    // A dependency's path from node_modules on is the same on every machine; elsewhere the base name is.
    return pre + (nm >= 0 ? p.slice(nm + 1) : p.slice(p.lastIndexOf('/') + 1));
  });
  m = m
    // a bundled config's temporary file, named anew each run (Vite: `vite.config.ts.timestamp-<ms>-<random hex>.mjs`)
    .replace(/\.timestamp-\d+-[0-9a-f]+(\.[cm]?js)\b/g, '.timestamp$1')
    // line and column: `file.ts:12:5`, `file.ts:12`, `(12,5)`, `line 12`, `column 5`
    .replace(/(\.[A-Za-z0-9]{1,6}):\d+(?::\d+)?\b/g, '$1')
    .replace(/\(\d+,\s?\d+\)/g, '')
    .replace(/\b(line|column|col|ln)\s+\d+\b/gi, '$1 N')
    // ISO timestamps (also npm's log-file spelling with underscores), Date#toString, clock times, epoch ms
    .replace(/\b\d{4}-\d{2}-\d{2}[T _]\d{2}[:_]\d{2}[:_]\d{2}(?:[._]\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, 'TS')
    .replace(/\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2} \d{4}( TS| \d{2}:\d{2}:\d{2})?(?: GMT[+-]\d{4}(?: \([^)]*\))?)?/g, 'TS')
    .replace(/\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g, 'TS')
    .replace(/\b1[5-9]\d{11}\b/g, 'TS')
    // a number a time-named key holds in a received/expected dump (`"actualStartTime": 5138.18`, `startedAt=…`, `runtime: 0.04`)
    .replace(/([A-Za-z_$][\w$]*)(["']?\s*[:=]\s*)-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.])/g, (all, key: string, sep: string) => (isTimeKey(key) ? `${key}${sep}T` : all))
    // durations and timings, in every runner's spelling: `12ms`, `(1.2 s)`, `1m 3s`, `2 minutes`,
    // node:test's `duration_ms: 3.1` (YAML) and `# duration_ms 74.9` / `ℹ duration_ms 74.9` (summaries),
    // tap's `# time=12.3ms`, Jest's `Time: 1.2 s, estimated 2 s`, Vitest's `Duration 1.53s (transform 30ms …)`
    .replace(/\b\d+m\s?\d+(?:\.\d+)?s\b/g, 'T')
    .replace(/\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns)\b/g, 'T')
    .replace(/\b\d+(?:\.\d+)?s\b/g, 'T')
    .replace(/\b\d+(?:\.\d+)? s\b(?!['\w])/g, 'T')
    .replace(/\b\d+(?:\.\d+)?\s(?:seconds?|secs?|minutes?|mins?)\b/g, 'T')
    .replace(/\b(duration(?:_ms)?|elapsed|time)(["']?\s*[:=]\s*)\d+(?:\.\d+)?/gi, '$1$2T')
    .replace(/\b(duration_ms|duration|time_ms)(\s+)\d+(?:\.\d+)?\b/gi, '$1$2T')
    // sizes in a unit a report of memory or output uses (`45 MB heap size`, `1.2 kB`, `512KiB`); a bare
    // `3 bytes` stays, as an assertion about a length may say it
    .replace(/\b\d+(?:\.\d+)?\s?(?:[kKMGT]i?B)\b/g, 'SIZE')
    // hex addresses and UUIDs
    .replace(/\b0x[0-9a-f]{4,}\b/gi, '0xA')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, 'UUID')
    // Values past a double's integers (a BigInt literal of 10 digits or more, 16 digits or more) and
    // long hex runs (random ids, digests): drawn from a clock or a random source, they are another
    // number each run (uuid's v7 tests print 37-digit BigInts), while the test and what it asserts stay
    .replace(/\b\d{10,}n\b/g, 'BIG')
    .replace(/\b\d{16,}\b/g, 'BIG')
    .replace(/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{16,}\b/gi, 'HEX')
    // seeds, PIDs, ephemeral ports
    .replace(/\b(seed|pid|process)\b(["']?\s*[:=#]?\s*)-?\d+/gi, '$1$2N')
    .replace(/\b(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]):\d+/g, '$1:PORT')
    .replace(/\b(port)(\s*[:=]?\s*)\d{2,5}\b/gi, '$1$2PORT')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
  return m;
}

/** A test title or rule id, as the identity uses it: colour and paths out, the words kept. */
export function normalizeId(id: string, ctx: NormalizeContext): string {
  let s = stripAnsi(id).replace(/\\/g, '/');
  if (ctx.root) for (const root of spellings(ctx.root)) s = s.split(root + '/').join('');
  return s.trim();
}

/** The (check, file, id, normalized message) tuple of one failure. */
export function failureKey(f: Failure, ctx: NormalizeContext): string {
  // A message the output's cut runs through is a part whose edges move run to run: the failure is its (check, file, id).
  let message = CUT_MARK.test(f.message) ? '[output cut]' : normalizeMessage(f.message, ctx);
  // A generic failure is a log tail; tools running in parallel interleave it differently run to run.
  if (f.id === 'exit') message = [...new Set(message.split('\n'))].sort().join('\n');
  return JSON.stringify([f.check, f.file ?? '', normalizeId(f.id ?? '', ctx), message]);
}

/**
 * SHA-256 of the sorted, de-duplicated tuples. Each distinct tuple is counted, so fixing one of two
 * identical errors (same message, same file, lines apart) is a different state, while the order
 * failures were printed in is not.
 */
export function failureIdentity(failures: readonly Failure[], ctx: NormalizeContext): string {
  const counts = new Map<string, number>();
  for (const f of failures) {
    const k = failureKey(f, ctx);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const lines = [...counts].map(([k, n]) => (n === 1 ? k : `${k}×${n}`)).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** The identity of a green state (no failures). */
export const GREEN_HASH = createHash('sha256').update('').digest('hex');
