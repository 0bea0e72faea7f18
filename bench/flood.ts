// Runs one check that prints N MB and reports this process's RSS growth while it is read:
// `verifier` reads it through the verifier's runner (head and tail kept); `raw` is the floor, Node
// itself reading the same pipe into nothing (child_process.spawn, an empty 'data' handler).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCommand } from '../src/core/verify/runner';

const mb = Number(process.argv[2] ?? 200);
const mode = process.argv[3] === 'raw' ? 'raw' : 'verifier';
const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-flood-'));
writeFileSync(
  path.join(dir, 'flood.cjs'),
  `const line = 'x'.repeat(1023) + '\\n'; const chunk = line.repeat(64); let left = ${mb} * 16;
function go() { while (left > 0) { left--; if (!process.stdout.write(chunk)) { process.stdout.once('drain', go); return; } } }
go();`,
);

function rawRead(): Promise<{ output: string; truncated: boolean; exitCode: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['flood.cjs'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    child.stdout.on('data', (c: Buffer) => (bytes += c.length));
    child.stderr.on('data', (c: Buffer) => (bytes += c.length));
    child.on('close', (code) => resolve({ output: '', truncated: bytes > 0, exitCode: code }));
  });
}

async function main(): Promise<void> {
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const t = Date.now();
  const r = mode === 'raw' ? await rawRead() : await runCommand({ command: 'node flood.cjs', cwd: dir, timeoutMs: 600_000, outputLimitBytes: 256 * 1024 });
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ mb, mode, growthMb: (peak - base) / 2 ** 20, keptChars: r.output.length, truncated: r.truncated, durationMs: Date.now() - t, exitCode: r.exitCode }) + '\n');
}

void main();
