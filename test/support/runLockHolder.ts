// A real process that takes a folder's run lock and holds it until killed (or, with --exit, exits
// at once without releasing it). Prints one JSON line: the acquire result.
//   node --import tsx test/support/runLockHolder.ts ROOT [--exit]
import { acquireRunLock } from '../../src/core/edit/runLock';

const root = process.argv[2];
if (!root) throw new Error('usage: runLockHolder.ts ROOT [--exit]');
const r = acquireRunLock(root, { runId: `holder-${process.pid}`, frontEnd: 'test', storageDir: '/tmp/holder-storage' });
process.stdout.write(JSON.stringify(r.ok ? { ok: true, pid: process.pid, stale: r.stale ?? null } : { ok: false, pid: process.pid, holder: r.holder }) + '\n');
if (process.argv.includes('--exit') || !r.ok) process.exit(0);
setInterval(() => undefined, 1 << 30);
