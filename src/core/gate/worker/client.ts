// The hook's side of the worker (issue 39): find the folder's worker by its record, start one when
// there is none, send it a request and wait for its line within a deadline. Anything short of a
// reply (no worker, a refused connection, a worker that dies mid-pass, a deadline passed) comes back
// as `unreachable` with why, and the hook runs the pass in its own process: the worker can only make
// a stop faster, never lose its verdict.
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import { processAlive } from '../../liveness';
import type { WorkerPlace } from './place';
import type { WorkerRecord, WorkerReply, WorkerRequest } from './protocol';
import { PROTOCOL_VERSION, readLine } from './protocol';

export type Asked = { reply: WorkerReply } | { unreachable: string };

type Body = WorkerRequest extends infer R ? (R extends unknown ? Omit<R, 'v' | 'token'> : never) : never;

/** The worker's record when its process is alive (by pid and start time), else undefined. */
export function liveWorker(place: WorkerPlace): WorkerRecord | undefined {
  let rec: WorkerRecord;
  try {
    rec = JSON.parse(readFileSync(place.recordFile, 'utf8')) as WorkerRecord;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || e instanceof SyntaxError) return undefined;
    throw e;
  }
  return processAlive(rec.pid, rec.startTime) ? rec : undefined;
}

/** Sends one request to the worker of `rec` and waits up to `timeoutMs` for its reply. */
export function ask(rec: WorkerRecord, body: Body, timeoutMs: number): Promise<Asked> {
  return new Promise((resolve) => {
    let settled = false;
    const socket = net.connect(rec.socket);
    const done = (a: Asked): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(a);
    };
    const timer = setTimeout(() => done({ unreachable: `no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.once('error', (e: NodeJS.ErrnoException) => done({ unreachable: `${e.code ?? 'error'}: ${e.message}` }));
    socket.once('connect', () => socket.write(`${JSON.stringify({ v: PROTOCOL_VERSION, token: rec.token, ...body })}\n`));
    readLine(socket, (line) => {
      if (line === undefined) return done({ unreachable: 'the worker closed the connection without an answer' });
      try {
        done({ reply: JSON.parse(line) as WorkerReply });
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
        done({ unreachable: 'the worker answered something that is not JSON' });
      }
    });
  });
}

/**
 * The folder's live worker, started with `start` when there is none, waited for up to `waitMs`
 * (its record written and its socket answering a status request). Undefined when none came up.
 */
export async function ensureWorker(place: WorkerPlace, start: () => void, waitMs: number): Promise<{ rec: WorkerRecord; started: boolean } | undefined> {
  const found = liveWorker(place);
  if (found) return { rec: found, started: false };
  start();
  const until = Date.now() + waitMs;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    const rec = liveWorker(place);
    if (!rec) continue;
    const a = await ask(rec, { kind: 'status' }, Math.max(100, until - Date.now()));
    if ('reply' in a && a.reply.ok) return { rec, started: true };
  }
  return undefined;
}

/** Asks the folder's worker to end; kills it by pid when it does not answer. What happened, in words. */
export async function stopWorker(place: WorkerPlace, why: string, timeoutMs = 5000): Promise<string> {
  const rec = liveWorker(place);
  if (!rec) return 'no worker is running for this folder';
  const a = await ask(rec, { kind: 'shutdown', why }, timeoutMs);
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && processAlive(rec.pid, rec.startTime)) await new Promise((r) => setTimeout(r, 50));
  if (!processAlive(rec.pid, rec.startTime)) return `the worker (pid ${rec.pid}) ended`;
  process.kill(rec.pid, 'SIGTERM');
  return `the worker (pid ${rec.pid}) did not end when asked (${'reply' in a ? 'it answered' : a.unreachable}); it was sent SIGTERM`;
}
