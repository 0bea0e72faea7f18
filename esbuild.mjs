// Two Node bundles (extension and CLI) plus the panel's browser script; codicons are copied into dist/.
import * as esbuild from 'esbuild';
import { LAZY, lazyModules } from './scripts/lazyModules.mjs';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';

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

const targets = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], plugins: [lazyModules(LAZY)] },
  { ...common, entryPoints: ['src/cli/bin.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', target: 'node20', banner: { js: '#!/usr/bin/env node' }, plugins: [lazyModules(LAZY)] },
];
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

if (watch) {
  markCommonJs();
  copyCodicons();
  for (const t of targets) {
    const ctx = await esbuild.context(t);
    await ctx.watch();
  }
} else {
  await Promise.all(targets.map((t) => esbuild.build(t)));
  markCommonJs();
  copyCodicons();
}
