// The executable entry of `dist/cli.js`.
import { redact } from '../core/secrets';
import type { CliIo } from './runCommand';
import { main } from './main';

const io: CliIo = {
  // The last line of defence: no provider key's value is ever printed (JSON included: the mark needs no escaping).
  stdout: (s) => process.stdout.write(redact(s) + '\n'),
  stderr: (s) => process.stderr.write(redact(s) + '\n'),
};

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`fix-until-green: ${redact(String(e))}\n`);
    process.exitCode = 3;
  },
);
