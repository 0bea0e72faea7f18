// `npm test`: every stage in turn (build, type-check, lint, unit, evals, e2e, hosts), each one's time
// printed as it ends and again in a table at the very end, so the last lines of a CI log say which
// stage failed and where the minutes went. A failed stage does not stop the later ones (their
// results are worth having from the same run); the exit code is the first failure's.
// Usage: node scripts/test.mjs [stage...]   (default: all, in order)
import { spawn } from 'node:child_process';

/** Runs a stage's command with its output passed through as it comes, and kept (the last 4 MB). */
function runTee(command) {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['inherit', 'pipe', 'pipe'] });
    let out = '';
    const keep = (chunk, stream) => {
      stream.write(chunk);
      out += chunk.toString();
      if (out.length > 4_000_000) out = out.slice(-4_000_000);
    };
    child.stdout.on('data', (c) => keep(c, process.stdout));
    child.stderr.on('data', (c) => keep(c, process.stderr));
    child.on('close', (status, signal) => resolve({ status, signal, out }));
  });
}

/**
 * The part of a failed stage's output that says what failed: mocha's numbered failures (from its
 * "N failing" line on, at most 150 lines), or else the stage's last 40 lines.
 */
function failureLines(out) {
  const lines = out.replace(/\r/g, '').split('\n');
  const at = lines.findIndex((l) => /^\s*\d+ failing\b/.test(l));
  return (at >= 0 ? lines.slice(at, at + 150) : lines.slice(-40)).join('\n');
}

const STAGES = {
  build: 'npm run build',
  typecheck: 'npm run typecheck',
  lint: 'npm run lint',
  unit: 'npm run test:unit',
  evals: 'npm run test:evals',
  e2e: 'npm run test:e2e',
  hosts: 'npm run test:hosts',
};
// The stages that need the build: a failed build makes their results meaningless.
const NEEDS_BUILD = new Set(['unit', 'evals', 'e2e', 'hosts']);

const asked = process.argv.slice(2);
for (const s of asked) {
  if (!(s in STAGES)) {
    console.error(`unknown stage "${s}": one of ${Object.keys(STAGES).join(', ')}`);
    process.exit(2);
  }
}
const stages = asked.length ? asked : Object.keys(STAGES);
const results = [];
const t0 = Date.now();
let buildFailed = false;
for (const stage of stages) {
  if (buildFailed && NEEDS_BUILD.has(stage)) {
    results.push({ stage, status: 'skipped (build failed)', s: 0 });
    continue;
  }
  console.log(`\n== ${stage}: ${STAGES[stage]}`);
  const start = Date.now();
  const r = await runTee(STAGES[stage]);
  const s = Math.round((Date.now() - start) / 1000);
  const status = r.status === 0 ? 'passed' : `FAILED (exit ${r.status ?? r.signal})`;
  if (stage === 'build' && r.status !== 0) buildFailed = true;
  console.log(`== ${stage} ${status} in ${s} s`);
  results.push({ stage, status, s, code: r.status ?? 1, tail: r.status === 0 ? '' : failureLines(r.out) });
}

const total = Math.round((Date.now() - t0) / 1000);
console.log('\n== npm test: the stages');
for (const r of results) console.log(`   ${r.stage.padEnd(10)} ${r.status.padEnd(24)} ${String(r.s).padStart(5)} s`);
console.log(`   ${'total'.padEnd(10)} ${''.padEnd(24)} ${String(total).padStart(5)} s`);
const failed = results.find((r) => r.status !== 'passed');
// A failed stage's own failure report, again at the very end: a CI log is often read by its tail,
// and the later stages' output would otherwise push the failing tests' names out of it.
for (const r of results) {
  if (r.tail) console.log(`\n== ${r.stage} failed; what it reported:\n${r.tail}`);
}
process.exit(failed ? failed.code || 1 : 0);
