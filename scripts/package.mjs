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
// repository). VS Code's Extensions page draws a README's pictures only from https addresses (its
// page allows `img-src https: data:`, and its sanitizer drops relative and data: sources), so the
// README's relative links become absolute: FUG_README_BASE_URL, else the repository's raw files
// (package.json `repository`), the addresses the Marketplace would use.
const base = readmeBaseUrl(process.env.FUG_README_BASE_URL, pkg.repository);
const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--readme-path', 'README.vsix.md', '--baseContentUrl', base, '--baseImagesUrl', base, '--out', out], { cwd: repo, stdio: 'inherit' });
if (r.error) throw r.error;
if (r.status !== 0) {
  console.error(`vsce package failed with exit code ${r.status}`);
  process.exit(r.status ?? 1);
}
console.log(`\nPackaged ${out}\nInstall it with: code --install-extension ${path.relative(process.cwd(), out) || out}`);

/** Where the packaged README's relative links point: an https folder address ending in `/`. */
function readmeBaseUrl(fromEnv, repository) {
  let base = fromEnv;
  if (!base) {
    const url = typeof repository === 'string' ? repository : repository?.url;
    if (!url) {
      console.error('package.json has no repository: set FUG_README_BASE_URL to the https folder the README\'s pictures are served from');
      process.exit(1);
    }
    base = `${url.replace(/^git\+/, '').replace(/\.git$/, '')}/raw/HEAD/`;
  }
  if (!/^https:\/\//.test(base)) {
    console.error(`the README's base URL must be https (VS Code's Extensions page draws no other pictures): ${base}`);
    process.exit(1);
  }
  return base.endsWith('/') ? base : `${base}/`;
}
