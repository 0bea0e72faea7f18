// `npm run package`: a .vsix of the extension with @vscode/vsce. vsce runs `vscode:prepublish`
// (production bundles) first; .vscodeignore keeps only the bundles, media, README.vsix.md as the
// README, LICENSE and CHANGELOG.
// Usage: npm run package [-- --out FILE.vsix] [--readme-base-url https://…/] [--release]
// The README's pictures (scripts/readmePictures.mjs): each relative picture becomes <base><path>,
// the base from --readme-base-url, FUG_README_BASE_URL or package.json config.readmeBaseUrl (the
// release's choice: where it publishes media/), else the repository's raw files when it names a
// real host; with none, the README goes without its pictures. --release demands a base and checks
// every picture address answers with an image.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingPictures, pictures, readmeBase, unreachablePictures, withoutPictures } from './readmePictures.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8'));
const args = process.argv.slice(2);
const arg = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const out = path.resolve(arg('--out') ?? path.join(repo, `${pkg.name}-${pkg.version}.vsix`));
const release = args.includes('--release');

const require = createRequire(import.meta.url);
const vscePkg = require.resolve('@vscode/vsce/package.json');
const vsce = path.join(path.dirname(vscePkg), JSON.parse(readFileSync(vscePkg, 'utf8')).bin.vsce);

const fail = (message) => {
  console.error(message);
  process.exit(1);
};

// The bundles carry every runtime dependency, so node_modules stays out of the package. The
// extension's page gets a README of its own (what a user does in VS Code, not how to build this
// repository), written to dist/ with its pictures resolved (vsce takes a README inside the folder).
const source = readFileSync(path.join(repo, 'README.vsix.md'), 'utf8');
const missing = missingPictures(source, (p) => existsSync(path.join(repo, p)));
if (missing.length > 0) fail(`README.vsix.md shows pictures that are not in this folder: ${missing.join(', ')}`);
const b = readmeBase({ flag: arg('--readme-base-url'), env: process.env.FUG_README_BASE_URL, config: pkg.config?.readmeBaseUrl, repository: pkg.repository });
if (b.error) fail(`the README's pictures: ${b.error}`);
if (b.none && release) fail(`a release needs the README's pictures on the web: ${b.none}. Publish media/ over https and pass --readme-base-url (or set FUG_README_BASE_URL, or package.json config.readmeBaseUrl) to its folder.`);
if (release) {
  const bad = await unreachablePictures(pictures(source).map((p) => new URL(p.replace(/^\.\//, ''), b.base).href));
  if (bad.length > 0) fail(`the README's pictures do not answer under ${b.base} (${b.from}):\n${bad.map((x) => `  ${x.url}: ${x.problem}`).join('\n')}`);
}
if (b.none) console.warn(`The package's README goes without its pictures: ${b.none}. VS Code draws a README's pictures only from https addresses: pass --readme-base-url (or set FUG_README_BASE_URL) to where media/ is published.`);
mkdirSync(path.join(repo, 'dist'), { recursive: true });
const readme = path.join('dist', 'README.vsix.md');
writeFileSync(path.join(repo, readme), b.base ? source : withoutPictures(source));
const base = b.base ? ['--baseContentUrl', b.base, '--baseImagesUrl', b.base] : [];
const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--readme-path', readme, ...base, '--out', out], { cwd: repo, stdio: 'inherit' });
if (r.error) throw r.error;
if (r.status !== 0) fail(`vsce package failed with exit code ${r.status}`);
console.log(`\nPackaged ${out}${b.base ? ` (README pictures under ${b.base}, from ${b.from})` : ''}\nInstall it with: code --install-extension ${path.relative(process.cwd(), out) || out}`);
