// `npm run package` builds a real .vsix with @vscode/vsce; it holds only the bundles, media,
// README, LICENSE and CHANGELOG (and the manifest files vsce adds), and the programs the checks run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { PROGRAM_NAMES } from '../../../src/core/verify/staged/programFile';
import { REPO } from '../../support/fixtures';

/** Entry names from a zip's central directory (a .vsix is a zip). */
function zipEntries(zip: Buffer): string[] {
  return zipDirectory(zip).map((e) => e.name);
}

/** One entry's bytes (stored or deflated). */
function zipRead(zip: Buffer, name: string): Buffer {
  const e = zipDirectory(zip).find((x) => x.name === name);
  if (!e) throw new Error(`${name} is not in the zip`);
  const start = e.offset + 30 + zip.readUInt16LE(e.offset + 26) + zip.readUInt16LE(e.offset + 28);
  const data = zip.subarray(start, start + e.compressedSize);
  return e.method === 0 ? data : inflateRawSync(data);
}

function zipDirectory(zip: Buffer): { name: string; offset: number; method: number; compressedSize: number }[] {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip: no end-of-central-directory record');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const entries: { name: string; offset: number; method: number; compressedSize: number }[] = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central directory entry at ${p}`);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    entries.push({ name: zip.subarray(p + 46, p + 46 + nameLen).toString('utf8'), offset: zip.readUInt32LE(p + 42), method: zip.readUInt16LE(p + 10), compressedSize: zip.readUInt32LE(p + 20) });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** Where a release publishes media/ (any https folder: the package test only reads the addresses). */
const BASE = 'https://pictures.fix-until-green.dev/0.1.0/';

describe('the .vsix package', function () {
  // Production bundles and vsce take a while on a shared machine.
  this.timeout(600000);

  it('holds only the bundles, media, README (its pictures https addresses under the release\'s base), LICENSE and CHANGELOG', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-vsix-'));
    // vsce builds the production bundles into dist/ first: in a copy of the package's sources, so
    // the repo's own dist/ (which other test files run, in parallel) is never rewritten under them.
    const copy = mkdtempSync(path.join(os.tmpdir(), 'fug-vsix-src-'));
    try {
      for (const f of ['package.json', '.vscodeignore', 'esbuild.mjs', 'tsconfig.json', 'README.md', 'README.vsix.md', 'LICENSE', 'CHANGELOG.md', 'src', 'media', 'scripts']) {
        cpSync(path.join(REPO, f), path.join(copy, f), { recursive: true });
      }
      // The build copies codicons from node_modules by a relative path.
      symlinkSync(path.join(REPO, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
      const out = path.join(dir, 'fix-until-green.vsix');
      // The release chooses where the README's pictures are published (scripts/readmePictures.mjs).
      const r = spawnSync(process.execPath, [path.join(copy, 'scripts', 'package.mjs'), '--out', out], { cwd: copy, encoding: 'utf8', env: { ...process.env, FUG_README_BASE_URL: BASE } });
      assert.equal(r.status, 0, `npm run package failed:\n${r.stdout}\n${r.stderr}`);
      const zip = readFileSync(out);
      const files = zipEntries(zip).sort();
      assert.deepEqual(files, [
        '[Content_Types].xml',
        'extension.vsixmanifest',
        'extension/LICENSE.txt',
        'extension/changelog.md',
        'extension/dist/acorn.js',
        'extension/dist/anthropic-sdk.js',
        'extension/dist/cli-hook.js',
        'extension/dist/cli-mcp.js',
        'extension/dist/cli.js',
        'extension/dist/codicons/codicon.css',
        'extension/dist/codicons/codicon.ttf',
        'extension/dist/engine.js',
        'extension/dist/extension.js',
        'extension/dist/openai-sdk.js',
        'extension/dist/package.json',
        'extension/dist/panel.js',
        // The programs the staged checks run inside the project's own tools (src/core/verify/staged/programFile.ts).
        ...PROGRAM_NAMES.map((f) => `extension/dist/programs/${f}`),
        'extension/dist/tokenizer.js',
        'extension/media/icon.png',
        'extension/media/panel.css',
        'extension/media/status-error.svg',
        'extension/media/status-green.svg',
        'extension/media/status-idle.svg',
        'extension/media/status-running.svg',
        'extension/media/status-stopped.svg',
        'extension/package.json',
        'extension/readme.md',
      ].sort());
      // The extension's page starts with what the user does in VS Code, not with this repository's build.
      const packaged = zipRead(zip, 'extension/readme.md').toString('utf8');
      assert.match(packaged, /^# Fix Until Green\n/);
      assert.doesNotMatch(packaged, /npm install|npm run/);
      // Every picture resolves: an https address under the chosen base of a file the release
      // publishes there (this folder's), or a file in the package; none under package.json's placeholder repository.
      const pictures = [...packaged.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]!);
      assert.ok(pictures.length >= 3, packaged.slice(0, 400));
      for (const p of pictures) {
        if (p.startsWith(BASE)) assert.ok(existsSync(path.join(REPO, ...p.slice(BASE.length).split('/'))), `${p}: a file of the folder the release publishes`);
        else assert.ok(!/^[a-z]+:/.test(p) && files.includes(`extension/${p}`), `${p}: neither under ${BASE} nor in the package`);
      }
      assert.doesNotMatch(packaged, /example\.invalid/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('reads a zip central directory', () => {
    assert.throws(() => zipEntries(Buffer.from('not a zip at all, just some bytes....')), /not a zip/);
  });
});
