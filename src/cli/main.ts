// The headless front end: `fix-until-green <command> [flags]`.
import { applyCommand } from './applyCommand';
import { UsageError } from './errors';
import { calibrateCommand } from './calibrateCommand';
import { evalCommand } from './evalCommand';
import { revertCommand } from './revertCommand';
import type { CliIo } from './runCommand';
import { runCommand } from './runCommand';
import { checkCommand } from './checkCommand';
import { parseCommand } from './parseCommand';

const USAGE = `usage: fix-until-green <command> [flags]

commands:
  run     run the loop: --cwd DIR --model replay:FILE|openai-compatible:ID|anthropic:ID
          [--base-url URL] [--max-steps N] [--token-ceiling N] [--stall-threshold N]
          [--time-limit S] [--check NAME=COMMAND]... [--instruction TEXT] [--json]
          [--storage DIR] [--ignore-interrupted]
  check   verify once, no model: [--cwd DIR] [--check NAME=COMMAND]... [--storage DIR] [--json]
          (checks come from fixUntilGreen.checks, else are discovered; exit 0 green, 1 failures)
  parse   read a check's output on stdin: --parser tsc|eslint|mocha|jest|vitest|node-test|tap|generic
          [--root DIR] [--cwd DIR] [--check NAME] [--exit-code N]; prints {failures, failureHash}
  apply   apply a model reply read on stdin: [--cwd DIR] [--dry-run] [--storage DIR];
          prints {applied, files, errors}; exit 1 if not applied (--dry-run: if it would not apply)
  revert  restore the files an interrupted run wrote: [--cwd DIR] [--storage DIR] [--run ID] [--json];
          exit 1 if a file changed since the run wrote it (it is left alone)
  eval    run scenarios (DIR has project/, replay.json, expect.json, optional settings.json;
          or DIR is a folder of them) and print a table: eval DIR... [--json] [--keep]
  calibrate  CONFIDENCE against outcomes from traces (files or run directories):
          calibrate TRACE... [--max-false-rate R] [--json]

exit: 0 green, 1 stopped not green, 2 usage or preflight error`;

type Command = (argv: string[], io: CliIo) => Promise<number>;

const commands: Record<string, Command> = {
  run: runCommand,
  check: checkCommand,
  parse: parseCommand,
  apply: applyCommand,
  revert: revertCommand,
  eval: evalCommand,
  calibrate: calibrateCommand,
};

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(USAGE);
    return name === undefined ? 2 : 0;
  }
  const cmd = commands[name];
  if (!cmd) {
    io.stderr(`fix-until-green: unknown command "${name}" (one of ${Object.keys(commands).join(', ')})`);
    return 2;
  }
  try {
    return await cmd(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`fix-until-green ${name}: ${e.message}`);
      return 2;
    }
    // parseArgs reports unknown or malformed flags with ERR_PARSE_ARGS_* codes.
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`fix-until-green ${name}: ${(e as Error).message}`);
      return 2;
    }
    io.stderr(`fix-until-green ${name}: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 3;
  }
}
