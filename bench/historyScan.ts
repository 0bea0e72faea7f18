// `bench history-scan`: the bench's history scan (src/core/bench/history.ts) on a synthetic repository
// of 5,000 first-parent commits (written with `git fast-import` in one process): every commit changes
// a source file, every third a test as well, every seventh only docs. One `git log` reads them all; the
// comparison is the shape it replaces, a `git show --name-status` per commit (timed on a sample of
// 200 and scaled), measured in the same run.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { scanHistory } from '../src/core/bench/history';

export const HISTORY_COMMITS = 5000;

function fastImport(root: string, commits: number): void {
  const chunks: string[] = [];
  const blob = (text: string): string => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (let i = 1; i <= commits; i++) {
    const files: [string, string][] = [];
    if (i % 7 === 0) files.push(['README.md', `# r${i}\n`]);
    else {
      files.push([`src/m${i % 97}.ts`, `export const v${i} = ${i};\n`]);
      if (i % 3 === 0) files.push([`test/m${i % 97}.test.ts`, `// ${i}\n`]);
    }
    const msg = `commit ${i}`;
    chunks.push(`commit refs/heads/main\ncommitter b <b@example.invalid> ${1_700_000_000 + i} +0000\n${blob(msg)}${files.map(([p, t]) => `M 100644 inline ${p}\n${blob(t)}`).join('')}\n`);
  }
  const r = spawnSync('git', ['fast-import', '--quiet'], { cwd: root, input: chunks.join(''), maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`git fast-import failed: ${String(r.stderr)}`);
}

export async function historyScanFigure(dir: string): Promise<{ commits: number; candidates: number; scanS: number; perCommitS: number; buildS: number }> {
  const root = path.join(dir, 'history');
  mkdirSync(root, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
  const b0 = performance.now();
  fastImport(root, HISTORY_COMMITS);
  const buildS = (performance.now() - b0) / 1000;
  const t0 = performance.now();
  const scan = await scanHistory(root);
  const scanS = (performance.now() - t0) / 1000;
  const sample = scan.commits.slice(0, 200);
  const s0 = performance.now();
  for (const c of sample) execFileSync('git', ['show', '--name-status', '--format=%H %P %s', c.commit], { cwd: root });
  const perCommitS = ((performance.now() - s0) / 1000) * (scan.commits.length / sample.length);
  return { commits: scan.commits.length, candidates: scan.candidates.length, scanS, perCommitS, buildS };
}
