// `npm run demo`: the loop on a copy of examples/demo with a recorded model. No key, no network.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const example = path.join(repo, 'examples', 'demo');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'fix-until-green-demo-'));
const project = path.join(scratch, 'demo');
const storage = path.join(scratch, 'storage');

// The checked-in example is never modified: the loop runs on a copy.
cpSync(example, project, {
  recursive: true,
  filter: (src) => !/[/\\](node_modules|replay\.json)$/.test(src),
});
// The demo's own checks use the repo's pinned typescript and tsx.
symlinkSync(path.join(repo, 'node_modules'), path.join(project, 'node_modules'), 'dir');

console.log(`Demo project copied to ${project}`);
console.log('The model is a recording (examples/demo/replay.json): its first attempt is wrong, the verifier says so, the second lands.\n');
const r = spawnSync(
  process.execPath,
  [path.join(repo, 'dist', 'cli.js'), 'run', '--cwd', project, '--model', `replay:${path.join(example, 'replay.json')}`, '--storage', storage, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
if (process.env.KEEP_DEMO === '1') console.log(`\nKept ${scratch} (the fixed project and the run's trace).`);
else {
  rmSync(scratch, { recursive: true, force: true });
  console.log('\n(The scratch copy and its trace were removed; KEEP_DEMO=1 npm run demo keeps them.)');
}
process.exit(r.status ?? 1);
