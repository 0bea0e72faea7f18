// `npm run package`: a .vsix of the extension with @vscode/vsce. vsce runs `vscode:prepublish`
// (production bundles) first; .vscodeignore keeps only the bundles, media (with the screenshots the
// extension's README shows), README.vsix.md as the README, LICENSE and CHANGELOG.
// Usage: npm run package [-- --out FILE.vsix]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8'));
const args = process.argv.slice(2);
const i = args.indexOf('--out');
const out = path.resolve(i >= 0 && args[i + 1] ? args[i + 1] : path.join(repo, `${pkg.name}-${pkg.version}.vsix`));

const require = createRequire(import.meta.url);
const vscePkg = require.resolve('@vscode/vsce/package.json');
const vsce = path.join(path.dirname(vscePkg), JSON.parse(readFileSync(vscePkg, 'utf8')).bin.vsce);

// The bundles carry every runtime dependency, so node_modules stays out of the package. The
// extension's page gets a README of its own (what a user does in VS Code, not how to build this
// repository); its screenshots are in the package, so the links stay relative to it.
const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--readme-path', 'README.vsix.md', '--no-rewrite-relative-links', '--out', out], { cwd: repo, stdio: 'inherit' });
if (r.error) throw r.error;
if (r.status !== 0) {
  console.error(`vsce package failed with exit code ${r.status}`);
  process.exit(r.status ?? 1);
}
console.log(`\nPackaged ${out}\nInstall it with: code --install-extension ${path.relative(process.cwd(), out) || out}`);
