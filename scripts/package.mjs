// `npm run package`: a .vsix of the extension with @vscode/vsce. vsce runs `vscode:prepublish`
// (production bundles) first; .vscodeignore keeps only the bundles, media, the README (README.vsix.md
// with its screenshots inlined), LICENSE and CHANGELOG.
// Usage: npm run package [-- --out FILE.vsix]
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { vsixReadme } from './vsixReadme.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8'));
const args = process.argv.slice(2);
const i = args.indexOf('--out');
const out = path.resolve(i >= 0 && args[i + 1] ? args[i + 1] : path.join(repo, `${pkg.name}-${pkg.version}.vsix`));

const require = createRequire(import.meta.url);
const vscePkg = require.resolve('@vscode/vsce/package.json');
const vsce = path.join(path.dirname(vscePkg), JSON.parse(readFileSync(vscePkg, 'utf8')).bin.vsce);

// The extension's page gets a README of its own, screenshots inlined (scripts/vsixReadme.mjs). vsce
// takes its path relative to the package folder; it is written under the gitignored .cache/, since
// the production build empties dist/ first.
const readmeDir = path.join(repo, '.cache', 'vsix-readme');
mkdirSync(readmeDir, { recursive: true });
const readmePath = path.relative(repo, path.join(readmeDir, 'README.md'));
writeFileSync(path.join(repo, readmePath), vsixReadme(repo));

// The bundles carry every runtime dependency, so node_modules stays out of the package.
const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--readme-path', readmePath, '--no-rewrite-relative-links', '--out', out], { cwd: repo, stdio: 'inherit' });
if (r.error) throw r.error;
if (r.status !== 0) {
  console.error(`vsce package failed with exit code ${r.status}`);
  process.exit(r.status ?? 1);
}
console.log(`\nPackaged ${out}\nInstall it with: code --install-extension ${path.relative(process.cwd(), out) || out}`);
