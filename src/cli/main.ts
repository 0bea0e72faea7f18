// The headless front end: `fix-until-green <command> [flags]`.
import { EXIT, UsageError, describeCliError, printFailure } from './errors';
import type { CliIo } from './runCommand';

const USAGE = `usage: fix-until-green <command> [flags]

commands:
  run     run the loop: --cwd DIR --model replay:FILE|openai-compatible:ID|anthropic:ID
          [--base-url URL] [--max-steps N] [--token-ceiling N] [--stall-threshold N]
          [--time-limit S] [--check NAME=COMMAND]... [--instruction TEXT] [--json]
          [--storage DIR] [--ignore-interrupted] [--no-staged-checks]
  check   verify once, no model: [--cwd DIR] [--check NAME=COMMAND]... [--storage DIR] [--json]
          (checks come from fixUntilGreen.checks, else are discovered; exit 0 green, 1 failures)
  parse   read a check's output on stdin: --parser tsc|eslint|biome|oxlint|mocha|jest|vitest|node-test|tap|ava|uvu|prettier|generic
          [--root DIR] [--cwd DIR] [--check NAME] [--exit-code N]; prints {failures, failureHash}
  apply   apply a model reply read on stdin: [--cwd DIR] [--dry-run] [--storage DIR];
          prints {applied, files, errors}; exit 1 if not applied (--dry-run: if it would not apply)
  revert  restore the files an interrupted run wrote: [--cwd DIR] [--storage DIR] [--run ID] [--json];
          --session ID: the files an agent's edit tools wrote in a hook session (ID: the host's session id or the run id);
          exit 1 if a file changed since the run wrote it (it is left alone)
  eval    run scenarios (DIR has project/, replay.json, expect.json, optional settings.json;
          or DIR is a folder of them) and print a table: eval DIR... [--json] [--keep]
          [--no-staged-checks]
  bench   which variant fixes this repository's own past bugs: --from-history [--last N | --since REV]
          [--explain] [--model SPEC]... [--variant NAME=settings.json]... [--no-oracle] [--no-holdout]
          [--check NAME=COMMAND]... [--max-steps N] [--token-ceiling N] [--time-limit S] [--jobs N]
          [--cost-ceiling N] [--storage DIR] [--out DIR] [--json];
          bench plan … --out plan.json; bench run --plan FILE [--shard I/N] [--results FILE];
          bench merge --plan FILE --out DIR RESULTS.jsonl...
  calibrate  CONFIDENCE against outcomes from traces (files or run directories):
          calibrate TRACE... [--max-false-rate R] [--json]
  mcp     serve fixUntilGreen_runChecks, fixUntilGreen_fix and fixUntilGreen_parse over MCP on stdio:
          [--cwd DIR] [--model replay:FILE|openai-compatible:ID|anthropic:ID] [--base-url URL]
          [--check NAME=COMMAND]... [--storage DIR]; runs until the client closes stdin

  hook    an agent host's hook: reads the host's hook JSON on stdin and answers in its contract:
          --host claude|codex|gemini|cursor|copilot-cli|vscode [--event stop|pre-tool|post-tool]
          [--timeout S] [--cwd DIR] [--storage DIR]; always exit 0 with the answer (1: unknown host)
  hooks   install|uninstall --host H [--scope project|user] [--cwd DIR] [--timeout S] [--json]:
          merge our hook entries into (or take them out of) the host's own config file

exit: 0 green (or done), 1 stopped not green (or checks fail, reply not applied, revert conflict),
      2 usage or preflight error (nothing written; also: the folder is busy with another run),
      3 fault (the file system refused a read or write, or an internal error); see the README`;

type Command = (argv: string[], io: CliIo) => Promise<number>;

/**
 * Each command's module is loaded when it is named, so `parse` or `apply` starts without the engine
 * it does not use. `run` and `eval` live in their own bundle (dist/cliModel.js, see esbuild.mjs) with
 * the providers and their SDKs.
 */
const commands: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./modelCommands')).runCommand,
  check: async () => (await import('./checkCommand')).checkCommand,
  parse: async () => (await import('./parseCommand')).parseCommand,
  apply: async () => (await import('./applyCommand')).applyCommand,
  revert: async () => (await import('./revertCommand')).revertCommand,
  eval: async () => (await import('./modelCommands')).evalCommand,
  bench: async () => (await import('./modelCommands')).benchCommand,
  calibrate: async () => (await import('./calibrateCommand')).calibrateCommand,
  mcp: async () => (await import('./mcpCommand')).mcpCommand,
  hook: async () => (await import('./hookCommand')).hookCommand,
  hooks: async () => (await import('./hooksCommand')).hooksCommand,
};

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(USAGE);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const load = commands[name];
  if (!load) {
    return reportFailure(name, rest, new UsageError(`unknown command "${name}" (one of ${Object.keys(commands).join(', ')})`), io);
  }
  try {
    return await (await load())(rest, io);
  } catch (e) {
    return reportFailure(name, rest, e, io);
  }
}

/**
 * A command that could not go on: one line on stderr and, when the caller reads JSON, a JSON object
 * on stdout; the exit code says which kind (README "Exit codes"). The stack only with
 * FIX_UNTIL_GREEN_DEBUG set.
 */
export function reportFailure(command: string, argv: readonly string[], e: unknown, io: CliIo): number {
  const f = describeCliError(e);
  const code = printFailure(command, argv, f, io);
  if (f.kind === 'internal' && process.env.FIX_UNTIL_GREEN_DEBUG && e instanceof Error && e.stack) io.stderr(e.stack);
  return code;
}
