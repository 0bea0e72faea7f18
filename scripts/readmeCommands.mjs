// Prints the commands of README.md's first ```sh block, one per line, without their `# comments`:
// the newcomer's two commands, which .ci/run runs exactly as written in a fresh clone.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'README.md';
const block = /```sh\n([\s\S]*?)```/.exec(readFileSync(file, 'utf8'));
if (!block) {
  console.error(`${file}: no \`\`\`sh block`);
  process.exit(1);
}
for (const line of block[1].split('\n')) {
  const cmd = line.replace(/\s+#.*$/, '').trim();
  if (cmd) console.log(cmd);
}
