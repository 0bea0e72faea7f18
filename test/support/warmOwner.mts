// A real process that runs a staged tsc check warm and is then killed by the test: its warm worker
// must not outlive it.   node --import tsx test/support/warmOwner.mts PROJECT STORAGE
import { Verifier } from '../../src/core/verify/verifier';

const [root, storageDir] = process.argv.slice(2);
if (!root || !storageDir) throw new Error('usage: warmOwner.mts PROJECT STORAGE');
const v = new Verifier({ root, checks: [{ name: 'tsc', command: 'tsc --noEmit -p tsconfig.json' }], parallel: false, outputLimitKb: 256, staged: true, storageDir });
const v0 = await v.verify(undefined, { previous: null });
const v1 = await v.verify(undefined, { previous: v0, changed: [] });
process.stdout.write(`${v1.checks[0]!.mode}\n`);
setInterval(() => undefined, 1 << 30);
