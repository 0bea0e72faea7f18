// Node bundles (the extension's shell, its engine, the CLI) plus the panel's browser script; codicons
// and the programs a check runs inside the project's tools (PROGRAMS) are copied into dist/.
// Imported by the guard test (test/unit/build) for the same options it builds.
import * as esbuild from 'esbuild';
import { LAZY, lazyModules } from './scripts/lazyModules.mjs';
import { cpSync, existsSync, mkdirSync, watch as watchFolder, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
// `--outdir=DIR`: the bundles go there instead of dist/ (the bench measures a production build apart).
const outdir = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length);

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  mainFields: ['module', 'main'],
};

/**
 * The programs a check runs inside the project's own tools (the Jest runner, the mocha hooks, the
 * Vitest reporter, the warm tsc worker): plain JavaScript files, copied as they are to
 * dist/programs. The code that starts them finds them beside its bundle
 * (src/core/verify/staged/programFile.ts), so every bundle below defines `import.meta.dirname`.
 */
export const PROGRAMS = { from: 'src/core/verify/staged/programs', to: 'programs' };

/** The shell bundle's budget (issue 16): what every window pays for at startup. */
export const SHELL_BUDGET_BYTES = 100 * 1024;

/**
 * The shell reaches the engine only through this import (src/vscode/shellEngine.ts); in the shell
 * bundle it becomes a require of engine.js beside it, evaluated at the first run or check pass.
 */
export const ENGINE_IMPORT = './folderEngine';
export const ENGINE_ENTRY = 'src/vscode/folderEngine.ts';

function engineApart() {
  return {
    name: 'engine-apart',
    setup(build) {
      build.onResolve({ filter: /^\.\/folderEngine$/ }, (args) => (args.importer.endsWith('shellEngine.ts') ? { path: './engine.js', external: true } : undefined));
    },
  };
}

export const CLI_MODEL_ENTRY = 'src/cli/modelCommands.ts';

/**
 * The CLI's commands, each a bundle of its own that cli.js (src/cli/main.ts) requires when the
 * command is named: `parse` starts without compiling the edit layer, `apply` without the parsers,
 * and neither with the providers' SDKs (in cliModel.js, for run and eval).
 */
export const CLI_COMMANDS = {
  './modelCommands': { entry: CLI_MODEL_ENTRY, out: 'cliModel.js' },
  './checkCommand': { entry: 'src/cli/checkCommand.ts', out: 'cli-check.js' },
  './parseCommand': { entry: 'src/cli/parseCommand.ts', out: 'cli-parse.js' },
  './applyCommand': { entry: 'src/cli/applyCommand.ts', out: 'cli-apply.js' },
  './revertCommand': { entry: 'src/cli/revertCommand.ts', out: 'cli-revert.js' },
  './calibrateCommand': { entry: 'src/cli/calibrateCommand.ts', out: 'cli-calibrate.js' },
  // The MCP server with the official SDK (issue 17): the SDK is bundled here and nowhere else.
  './mcpCommand': { entry: 'src/cli/mcpCommand.ts', out: 'cli-mcp.js' },
  // Agent hosts' hooks (issue 30): the gate at an agent's stop and edits, and installing it.
  './hookCommand': { entry: 'src/cli/hookCommand.ts', out: 'cli-hook.js' },
  './hooksCommand': { entry: 'src/cli/hooksCommand.ts', out: 'cli-hooks.js' },
};

function cliCommandsApart() {
  return {
    name: 'cli-commands-apart',
    setup(build) {
      build.onResolve({ filter: /^\.\/(\w+Commands?|providers)$/ }, (args) => {
        const from = args.importer.replaceAll('\\', '/');
        // main.ts names the commands; runCommand.ts (bundled for its helpers) loads the providers from cliModel.js.
        if (from.endsWith('src/cli/main.ts') && CLI_COMMANDS[args.path]) return { path: `./${CLI_COMMANDS[args.path].out}`, external: true };
        if (args.path === './providers' && from.endsWith('src/cli/runCommand.ts')) return { path: './cliModel.js', external: true };
        return undefined;
      });
    },
  };
}

/** The Node bundles; `overrides` (e.g. metafile, outdir) apply to each. */
export function nodeTargets(overrides = {}) {
  // A CommonJS bundle has no import.meta: the folder of a module is the bundle's own.
  const node = { ...common, platform: 'node', format: 'cjs', target: 'node20', define: { 'import.meta.dirname': '__dirname' }, ...overrides };
  return [
    // `import()` becomes a plain require: the extension host loads engine.js as CommonJS, as it loads the shell.
    { ...node, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], supported: { 'dynamic-import': false }, plugins: [engineApart()] },
    { ...node, entryPoints: [ENGINE_ENTRY], outfile: 'dist/engine.js', external: ['vscode'], plugins: [lazyModules(LAZY)] },
    // cli.js is the dispatcher; each command is its own bundle (CLI_COMMANDS).
    { ...node, entryPoints: ['src/cli/bin.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, supported: { 'dynamic-import': false }, plugins: [cliCommandsApart()] },
    ...Object.values(CLI_COMMANDS).map(({ entry, out }) => ({ ...node, entryPoints: [entry], outfile: `dist/${out}`, plugins: [cliCommandsApart(), lazyModules(LAZY)] })),
    // The chunks LAZY names, each a CommonJS module of its own.
    // A chunk reaches the others lazily too (the providers count tokens with the tokenizer's chunk).
    ...Object.entries(LAZY).flatMap(([mod, { chunk, entry }]) => (chunk ? [{ ...node, entryPoints: [entry ?? mod], outfile: `dist/${chunk.replace(/^\.\//, '')}`, plugins: [lazyModules(Object.fromEntries(Object.entries(LAZY).filter(([m]) => m !== mod)))] }] : [])),
  ];
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
const targets = nodeTargets();
if (existsSync('media/panel.ts')) {
  targets.push({ ...common, entryPoints: ['media/panel.ts'], outfile: 'dist/panel.js', platform: 'browser', format: 'iife', target: 'es2022' });
}

if (outdir) for (const t of targets) t.outfile = `${outdir}/${t.outfile.replace(/^dist\//, '')}`;

// The package is ESM for its sources and tests; the bundles in dist/ are CommonJS, as VS Code loads them.
function markCommonJs() {
  mkdirSync('dist', { recursive: true });
  writeFileSync('dist/package.json', '{ "type": "commonjs" }\n');
}

function copyCodicons() {
  mkdirSync('dist/codicons', { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) {
    cpSync(`node_modules/@vscode/codicons/dist/${f}`, `dist/codicons/${f}`);
  }
}

function copyPrograms() {
  cpSync(PROGRAMS.from, `${outdir ?? 'dist'}/${PROGRAMS.to}`, { recursive: true });
}

if (isMain) await buildAll();

async function buildAll() {
  if (watch) {
    markCommonJs();
    copyCodicons();
    copyPrograms();
    // The programs are no entry point of esbuild's: copied again when one changes.
    watchFolder(PROGRAMS.from, () => copyPrograms());
    for (const t of targets) {
      const ctx = await esbuild.context(t);
      await ctx.watch();
    }
  } else {
    await Promise.all(targets.map((t) => esbuild.build(t)));
    markCommonJs();
    copyCodicons();
    copyPrograms();
  }
}
