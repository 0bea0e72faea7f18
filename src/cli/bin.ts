// The executable entry of `dist/cli.js`.
import type { CliIo } from './runCommand';
import { main } from './main';

const io: CliIo = {
  stdout: (s) => process.stdout.write(s + '\n'),
  stderr: (s) => process.stderr.write(s + '\n'),
};

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`fix-until-green: ${String(e)}\n`);
    process.exitCode = 3;
  },
);
