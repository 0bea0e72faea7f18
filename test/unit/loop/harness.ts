// A small real project in a scratch directory, checked by the real verifier running a real check
// (an awk program that prints TAP from the values file, a few ms a run), and scripted providers.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import type { RunOptions } from '../../../src/core/loop/run';
import { Run } from '../../../src/core/loop/run';
import type { ModelProvider } from '../../../src/core/model/provider';
import type { ReplayResponse } from '../../../src/core/model/replay';
import { ReplayProvider } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import type { Settings } from '../../../src/core/settings';
import type { TimedEvent } from '../../../src/core/trace/events';
import { readTrace } from '../../../src/core/trace/trace';
import type { Completion, CompletionRequest, VerifyResult } from '../../../src/core/types';
import type { VerifyOptions } from '../../../src/core/verify/verifier';
import { Verifier } from '../../../src/core/verify/verifier';
import { valuesCheckCommand } from '../../support/checks';
import { diffOf, reply } from '../../support/replies';
import type { ReplyOptions } from '../../support/replies';

export const SRC = 'src/values.txt';
export const TEST = 'test/values.test.txt';

/** `a=bad` fails test `a` until the line reads `a=ok`; likewise for every key. */
export function values(v: Record<string, string>): string {
  return Object.entries(v).map(([k, x]) => `${k}=${x}`).join('\n') + '\n';
}

export interface Project {
  dir: string;
  root: string;
  storage: string;
  read(rel: string): string;
  write(rel: string, text: string): void;
  cleanup(): void;
}

export function project(files: Record<string, string>): Project {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-policy-'));
  const root = path.join(dir, 'project');
  const write = (rel: string, text: string): void => {
    const abs = path.join(root, ...rel.split('/'));
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  };
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  return {
    dir,
    root,
    storage: path.join(dir, 'storage'),
    read: (rel) => readFileSync(path.join(root, ...rel.split('/')), 'utf8'),
    write,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The check of `SRC`, as a real process: one TAP test per key, failing each key whose value is not
 * `ok`, with the key as the test id, `TEST` as its file and the value in the message (so a reworded
 * failure keeps its id but changes the identity).
 */
export const VALUES_CHECK = { name: 'test', command: valuesCheckCommand(SRC), parser: 'tap' as const };

/** The real verifier, recording the `previous` state each verification was given (its hash; null for none). */
export class RecordingVerifier extends Verifier {
  calls = 0;
  readonly previousHashes: (string | null)[] = [];

  override verify(signal?: AbortSignal, options: VerifyOptions = {}): Promise<VerifyResult> {
    this.calls++;
    this.previousHashes.push(options.previous ? options.previous.failureHash : null);
    return super.verify(signal, options);
  }
}

/** The verifier a run of these settings gets, built as the CLI builds it. */
export function verifierFor(root: string, st: Settings, storageDir: string): RecordingVerifier {
  return new RecordingVerifier({ root, checks: st.checks, parallel: st.parallelChecks, outputLimitKb: st.outputLimitKb, flakyReruns: st.flakyReruns, storageDir });
}

/** A reply that rewrites SRC from one set of values to another. */
export function step(from: Record<string, string>, to: Record<string, string>, o: ReplyOptions = {}): ReplayResponse {
  return { text: reply([diffOf(SRC, values(from), values(to))], o), usage: { input: 1000, output: 100 } };
}

/** A provider that never answers. With `honour`, it rejects when its signal aborts, as real SDKs do. */
export class SilentProvider implements ModelProvider {
  readonly label = 'silent';
  calls = 0;
  constructor(private readonly honour: boolean) {}

  complete(req: CompletionRequest): Promise<Completion> {
    this.calls++;
    return new Promise((_resolve, reject) => {
      if (this.honour) req.signal.addEventListener('abort', () => reject(new Error('request aborted')), { once: true });
    });
  }
}

/** Answers from a script, but stalls forever from call `hangFrom` (1-based) on. */
export class HangingReplay implements ModelProvider {
  readonly label = 'hanging-replay';
  private readonly inner: ReplayProvider;
  calls = 0;
  constructor(responses: ReplayResponse[], private readonly hangFrom: number) {
    this.inner = new ReplayProvider({ responses });
  }

  complete(req: CompletionRequest): Promise<Completion> {
    this.calls++;
    if (this.calls >= this.hangFrom) return new Promise(() => undefined);
    return this.inner.complete(req);
  }
}

export function settings(over: Partial<Settings> = {}): Settings {
  return { ...defaultSettings(), checks: [VALUES_CHECK], maxSteps: 8, ...over };
}

export interface Started {
  run: Run;
  provider: ModelProvider;
  verifier: RecordingVerifier;
  events: TimedEvent[];
}

export function makeRun(p: Project, provider: ModelProvider | ReplayResponse[], over: Partial<Settings> = {}, extra: Partial<RunOptions> = {}): Started {
  const events: TimedEvent[] = [];
  const prov = Array.isArray(provider) ? new ReplayProvider({ responses: provider }) : provider;
  const st = settings(over);
  const verifier = verifierFor(p.root, st, p.storage);
  const run = new Run({
    workspace: new FsWorkspace(p.root),
    verifier,
    provider: prov,
    settings: st,
    storageDir: p.storage,
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { run, provider: prov, verifier, events };
}

export function traceOf(tracePath: string): TimedEvent[] {
  return readTrace(tracePath);
}

export function ofType<T extends TimedEvent['type']>(events: readonly TimedEvent[], type: T): Extract<TimedEvent, { type: T }>[] {
  return events.filter((e): e is Extract<TimedEvent, { type: T }> => e.type === type);
}
