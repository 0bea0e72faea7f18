// What the real-host tests share: our CLI run as the tests' user runs it (with the scratch storage),
// and a host session's record in that storage (the trace the hooks wrote, its stops and decision).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { REPO } from '../support/fixtures';
import type { Scratch } from '../support/fixtures';

export const run = promisify(execFile);
export const CLI = path.join(REPO, 'dist', 'cli.js');

/** `fix-until-green ARGS` with the scratch's storage. */
export async function fug(args: string[], s: Scratch): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], { env: { ...process.env, FIX_UNTIL_GREEN_STORAGE: s.storage } });
}

/** `hooks install --host HOST` into the scratch project, our hook run as `node dist/cli.js`, a 120 s host timeout. */
export async function installHooks(s: Scratch, host: string): Promise<{ changed: boolean; events: string[] }> {
  const { stdout } = await fug(['hooks', 'install', '--host', host, '--scope', 'project', '--cwd', s.project, '--command', `"${process.execPath}" "${CLI}"`, '--timeout', '120', '--json'], s);
  return JSON.parse(stdout) as { changed: boolean; events: string[] };
}

function readdirOne(dir: string, keep: (n: string) => boolean = () => true): string {
  const names = readdirSync(dir).filter(keep);
  assert.equal(names.length, 1, `one entry in ${dir}: ${names.join(', ')}`);
  return names[0]!;
}

/** The events of the one `host` session recorded in the scratch's storage, which must name `sessionId`. */
export function traceOf(s: Scratch, host: string, sessionId: string): Record<string, unknown>[] {
  // The storage holds one folder per project, beside install's own records (hook-installs/).
  const runs = path.join(s.storage, readdirOne(s.storage, (n) => n !== 'hook-installs'), 'runs');
  const dir = readdirOne(runs, (n) => n.startsWith(`hook-${host}-`) && !n.endsWith('.lock'));
  const text = readFileSync(path.join(runs, dir, 'trace.jsonl'), 'utf8');
  const events = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.ok(events.some((e) => e.sessionId === sessionId), `the trace names session ${sessionId}`);
  return events;
}

/** The stop hook's answers, in order. */
export function stops(events: Record<string, unknown>[]): { answer: unknown; reason: string }[] {
  return events.filter((e) => e.type === 'hook' && e.event === 'stop').map((e) => ({ answer: e.answer, reason: String(e.reason) }));
}

/** The reason of the session's (first) stop decision. */
export function decisionOf(events: Record<string, unknown>[]): string {
  return (events.find((e) => e.type === 'decision') as { reason: string }).reason;
}
