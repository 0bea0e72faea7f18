// The hook worker's protocol (issue 39): one connection per request, one JSON line each way. Every
// request carries the token of the worker's record (a 0600 file in the user's 0700 storage folder):
// Node has no peer-credential call for a Unix socket, so knowing the token is what shows the caller
// is this user; the folder's and the socket's modes keep others out before that.
import type { Socket } from 'node:net';
import type { Refusal } from '../../launch';
import type { HookCall, HookHost } from '../hookHosts';
import type { HookResult } from '../hookContext';

export const PROTOCOL_VERSION = 1;

/** A request line's largest size: a hook call's input is a few kilobytes; anything far bigger is not ours. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

export type WorkerRequest =
  | { v: number; token: string; kind: 'stop-call'; root: string; host: HookHost; call: HookCall; budgetMs: number }
  | { v: number; token: string; kind: 'status' }
  | { v: number; token: string; kind: 'shutdown'; why: string };

/** What the worker says of itself with every answer (the hook's trace records it). */
export interface WorkerInfo {
  pid: number;
  /** Stop calls this worker answered before this one. */
  calls: number;
  /** Whether the checks' engine (and what it keeps warm) was reused from an earlier call. */
  warm: boolean;
}

export type WorkerReply =
  | { ok: true; kind: 'result'; result: HookResult; worker: WorkerInfo; /** What the call warned of (a transcript not read…): the hook says it where the host logs it. */ warnings?: string[] }
  | { ok: true; kind: 'refused'; refusal: Refusal; worker: WorkerInfo }
  | { ok: true; kind: 'status'; worker: WorkerInfo; root: string }
  | { ok: true; kind: 'stopping'; worker: WorkerInfo }
  | { ok: false; error: string };

/** The record the worker writes once it listens (`<storage>/worker/worker.json`, mode 0600). */
export interface WorkerRecord {
  pid: number;
  /** The process's start time (liveness.ts), so a reused pid is not taken for the worker. */
  startTime: string | null;
  socket: string;
  token: string;
  root: string;
  startedAt: string;
  idleMs: number;
}

/** Calls `onLine` with the first full line read from `socket` (or undefined when it ends first). */
export function readLine(socket: Socket, onLine: (line: string | undefined) => void): void {
  let buf = '';
  let done = false;
  const finish = (line: string | undefined): void => {
    if (done) return;
    done = true;
    socket.off('data', onData);
    onLine(line);
  };
  const onData = (chunk: Buffer | string): void => {
    buf += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const nl = buf.indexOf('\n');
    if (nl >= 0) finish(buf.slice(0, nl));
    else if (buf.length > MAX_LINE_BYTES) {
      finish(undefined);
      socket.destroy();
    }
  };
  socket.setEncoding('utf8');
  socket.on('data', onData);
  socket.once('end', () => finish(undefined));
  socket.once('close', () => finish(undefined));
  socket.once('error', () => finish(undefined));
}
