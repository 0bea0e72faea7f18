// The executable entry of `dist/cli.js`.
import { redact } from '../core/secrets';
import { EXIT } from './errors';
import { main, reportFailure } from './main';
import type { CliIo } from './runCommand';

const io: CliIo = {
  // The last line of defence: no provider key's value is ever printed (JSON included: the mark needs no escaping).
  stdout: (s) => process.stdout.write(redact(s) + '\n'),
  stderr: (s) => process.stderr.write(redact(s) + '\n'),
};

const argv = process.argv.slice(2);
const command = argv[0] ?? 'fix-until-green';
let answered = false;

/**
 * A fault outside the command's own promise (a failed background write, an error in a handler)
 * ends the process the same way as one inside it: one line, JSON when asked for, exit 3. Never
 * Node's default stack trace.
 */
function fatal(e: unknown): void {
  if (answered) {
    io.stderr(`fix-until-green ${command}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  } else {
    answered = true;
    process.exitCode = reportFailure(command, argv.slice(1), e, io);
  }
  if (process.exitCode === undefined || process.exitCode === EXIT.ok) process.exitCode = EXIT.fault;
  // Let stdout drain, then end: whatever failed may have left timers or sockets open.
  setImmediate(() => process.exit());
}

process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

main(argv, io).then(
  (code) => {
    answered = true;
    process.exitCode = code;
  },
  fatal,
);
