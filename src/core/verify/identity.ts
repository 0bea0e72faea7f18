// The failure identity: what stays the same while a failure stays the same.
import { createHash } from 'node:crypto';
import stripAnsi from 'strip-ansi';
import type { Failure } from '../types';

export interface NormalizeContext {
  /** Absolute workspace root; removed from messages. */
  root: string;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Removes what changes without the failure changing (DESIGN §4). */
export function normalizeMessage(message: string, ctx: NormalizeContext): string {
  let m = stripAnsi(message).replace(/\r\n?/g, '\n');
  if (ctx.root) {
    const root = ctx.root.replace(/\\/g, '/').replace(/\/+$/, '');
    m = m.replace(/\\/g, '/').replace(new RegExp(escapeRegExp(root) + '/?', 'g'), '');
  }
  m = m
    // temp dirs and other absolute paths: keep the base name only
    .replace(/(?:file:\/\/)?(?:\/[\w.@+-]+){2,}\/([\w.@+-]+)/g, '$1')
    // line/column suffixes and (line,col) pairs
    .replace(/:\d+:\d+\b/g, '')
    .replace(/\(\d+,\d+\)/g, '')
    .replace(/\bline \d+\b/gi, 'line N')
    // durations and timings
    .replace(/\b(duration_ms|duration|elapsed|time)(["']?\s*[:=]?\s*)\d+(?:\.\d+)?/gi, '$1$2T')
    .replace(/\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|m|min)\b/g, 'T')
    // ISO timestamps and clock times
    .replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b/g, 'TS')
    .replace(/\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g, 'TS')
    // hex addresses
    .replace(/\b0x[0-9a-f]{4,}\b/gi, '0xA')
    // seeds and PIDs
    .replace(/\b(seed|pid|PID)\s*[:=]?\s*\d+/g, '$1 N')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .trim();
  return m;
}

export function failureKey(f: Failure, ctx: NormalizeContext): string {
  return JSON.stringify([f.check, f.file ?? '', f.id ?? '', normalizeMessage(f.message, ctx)]);
}

/** SHA-256 of the sorted, de-duplicated (check, file, id, normalized message) tuples. */
export function failureIdentity(failures: readonly Failure[], ctx: NormalizeContext): string {
  const keys = [...new Set(failures.map((f) => failureKey(f, ctx)))].sort();
  return createHash('sha256').update(keys.join('\n')).digest('hex');
}

/** The identity of a green state (no failures). */
export const GREEN_HASH = createHash('sha256').update('').digest('hex');
