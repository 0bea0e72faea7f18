// The token ceiling holds against a provider that reports its own usage: across randomized runs
// with the real loop, the real openai-compatible provider and a local server whose tokenizer and
// framing differ from ours, total reported usage never exceeds tokenCeiling, and every request's
// max-output value is at most what remained when it was sent. The verifier is scripted (a real
// one would make hundreds of check runs); everything between the loop and the socket is real.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import type { VerifierPort } from '../../../src/core/loop/run';
import { Run } from '../../../src/core/loop/run';
import { OpenAICompatibleProvider } from '../../../src/core/model/openaiCompatible';
import { defaultSettings } from '../../../src/core/settings';
import type { Failure, VerifyResult } from '../../../src/core/types';
import type { FakeStep } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';

/** mulberry32: small, seedable, good enough to spread test cases. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['const', 'total', 'items', 'reduce', 'price', '=>', '(', ')', '{', '}', ';', 'return', 'export', 'function', 'number', 'string', 'await', 'if', 'else', 'for', '0.5', '42', '"quoted"', 'naïve', '日本', '//', 'TODO', 'assert.equal', 'describe', 'it'];

function words(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(r() * WORDS.length)]!, i % 12 === 11 ? '\n' : ' ');
  return out.join('');
}

/** Never green; each verify reports different failures so the run is not stalled. */
class ScriptedVerifier implements VerifierPort {
  private n = 0;
  constructor(private readonly files: string[], private readonly r: () => number) {}
  preflight(): string[] {
    return [];
  }
  async verify(): Promise<VerifyResult> {
    this.n++;
    const count = 1 + Math.floor(this.r() * 6);
    const failures: Failure[] = Array.from({ length: count }, (_, i) => ({
      check: i % 2 ? 'test' : 'typecheck',
      file: this.files[Math.floor(this.r() * this.files.length)]!,
      line: 1 + Math.floor(this.r() * 40),
      id: `TS${2300 + i}`,
      message: `state ${this.n}: ${words(this.r, 5 + Math.floor(this.r() * 40))}`,
    }));
    return { green: false, failures, flaky: [], failureHash: `h${this.n}`, checks: [], durationMs: 1 };
  }
}

interface Outcome {
  seed: number;
  ceiling: number;
  used: number;
  stop: string;
  calls: number;
}

async function oneRun(seed: number): Promise<Outcome> {
  const r = rng(seed);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-ceiling-'));
  try {
    const root = path.join(dir, 'project');
    const files = Array.from({ length: 1 + Math.floor(r() * 5) }, (_, i) => `src/f${i}.ts`);
    mkdirSync(path.join(root, 'src'), { recursive: true });
    for (const f of files) writeFileSync(path.join(root, f), words(r, 20 + Math.floor(r() * 3000)));

    const ceiling = 1000 + Math.floor(r() * 60_000);
    const script: FakeStep[] = Array.from({ length: 30 }, (): FakeStep => {
      const x = r();
      if (x < 0.08) return { fault: 'status', status: 503 };
      if (x < 0.14) return { content: '' };
      return { content: `STATUS: in_progress\nCONFIDENCE: 0.5\nPOSTMORTEM: ${words(r, 10)}\n\n${words(r, Math.floor(r() * 4000))}` };
    });
    const server = await startFakeOpenAI({
      script,
      whenExhausted: 'repeat-last',
      usage: {
        // A provider whose tokenizer counts from half to 1.35 times what cl100k does, plus framing.
        inputScale: 0.5 + r() * 0.85,
        inputExtra: Math.floor(r() * 40),
        output: r() < 0.5 ? 'max' : 'text',
      },
    });
    try {
      const provider = new OpenAICompatibleProvider({ model: 'fake-model', baseUrl: server.url, keyHint: 'n/a', retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 } });
      const settings = {
        ...defaultSettings(),
        checks: [{ name: 'scripted', command: 'true' }],
        tokenCeiling: ceiling,
        contextTokenBudget: 1000 + Math.floor(r() * 12_000),
        maxSteps: 1 + Math.floor(r() * 15),
        stallThreshold: 20,
      };
      const run = new Run({ workspace: new FsWorkspace(root), verifier: new ScriptedVerifier(files, r), provider, settings, storageDir: path.join(dir, 'storage') });
      const report = await run.start();

      let used = 0;
      let calls = 0;
      for (const q of server.requests.filter((x) => x.index >= 0)) {
        assert.ok(q.maxTokens !== undefined && q.maxTokens > 0, `seed ${seed}: request ${q.index} had no output limit`);
        assert.ok(q.maxTokens <= ceiling - used, `seed ${seed}: request ${q.index} asked for ${q.maxTokens} output tokens with ${ceiling - used} of ${ceiling} remaining`);
        if (q.usage) {
          used += q.usage.input + q.usage.output;
          calls++;
        }
      }
      assert.ok(used <= ceiling, `seed ${seed}: reported usage ${used} exceeds the ceiling ${ceiling}`);
      assert.equal(report.tokensUsed, used, `seed ${seed}: the run's count matches the provider's`);
      assert.ok(['token-ceiling', 'step-cap'].includes(report.stopReason), `seed ${seed}: stopped with ${report.stopReason}: ${report.detail}`);
      return { seed, ceiling, used, stop: report.stopReason, calls };
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('token ceiling property (randomized runs against the local server)', function () {
  this.timeout(600_000);
  const base = Number(process.env.FUG_PROPERTY_SEED ?? 20260101);
  const runs = Number(process.env.FUG_PROPERTY_RUNS ?? 40);

  it(`holds across ${runs} runs: usage never exceeds the ceiling, no request asks for more than remains`, async () => {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < runs; i++) outcomes.push(await oneRun(base + i));
    const ceilingStops = outcomes.filter((o) => o.stop === 'token-ceiling');
    // The property is only tested if runs actually reach the ceiling.
    assert.ok(ceilingStops.length >= runs / 4, `only ${ceilingStops.length} of ${runs} runs reached the ceiling`);
    const fill = ceilingStops.map((o) => o.used / o.ceiling);
    const mean = fill.reduce((a, b) => a + b, 0) / fill.length;
    console.log(`      ${runs} runs, ${outcomes.reduce((n, o) => n + o.calls, 0)} calls; ${ceilingStops.length} stopped at the ceiling, using ${(Math.min(...fill) * 100).toFixed(1)}-${(Math.max(...fill) * 100).toFixed(1)}% (mean ${(mean * 100).toFixed(1)}%) of it`);
  });
});
