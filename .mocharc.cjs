// Mocha's configuration. `npx mocha` runs the whole unit suite in parallel; `npx mocha FILE...`
// runs just those files, in one process (no worker start-up).
//
// Mocha adds a config file's `spec` to the files named on the command line, so a fixed `spec` here
// would make `npx mocha FILE` run the whole suite as well: it applies only when no file is named.
const VALUE_FLAGS = new Set(['--require', '-r', '--file', '--ignore', '--exclude', '--config', '--package', '--reporter', '-R', '--reporter-option', '-O', '--grep', '-g', '--fgrep', '-f', '--timeout', '-t', '--slow', '-s', '--jobs', '-j', '--ui', '-u', '--extension', '--node-option', '-n', '--retries']);
const args = process.argv.slice(2);
const named = args.some((a, i) => a === '--spec' || a.startsWith('--spec=') || (!a.startsWith('-') && !VALUE_FLAGS.has(args[i - 1] ?? '')));

module.exports = {
  'node-option': ['import=tsx'],
  ...(named ? {} : { spec: ['test/unit/**/*.test.ts'], parallel: true, jobs: 2 }),
  // Builds dist/ once before any worker starts, so no two test files build it at the same time.
  require: ['test/support/globalSetup.mjs'],
  timeout: 60000,
  slow: 5000,
  reporter: 'spec',
};
