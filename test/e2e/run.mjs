// `npm run test:e2e` (after test/e2e/install.sh): packages the extension and the scripted test
// model as .vsix files, then runs the e2e specs in real VS Code (code-server + Chromium).
// Usage: node test/e2e/run.mjs [mocha args, e.g. --grep stalled]
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import * as esbuild from 'esbuild';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cache = process.env.FUG_E2E_CACHE ?? path.join(repo, '.cache', 'e2e');
mkdirSync(cache, { recursive: true });

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: repo, ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    console.error(`${[cmd, ...args].join(' ')} failed with exit code ${r.status}`);
    process.exit(r.status ?? 1);
  }
}

// Screenshots are this run's CI artifacts: start from an empty folder.
rmSync(path.join(repo, 'test', 'e2e', 'screenshots'), { recursive: true, force: true });

// The packaged README's pictures are https addresses (the only ones VS Code's Extensions page
// draws): here a local https server of the repository's files, which the vsix-readme spec starts.
const readmePort = await new Promise((resolve, reject) => {
  const s = createServer();
  s.once('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const a = s.address();
    s.close(() => resolve(a.port));
  });
});
process.env.FUG_E2E_README_PORT = String(readmePort);

const t0 = Date.now();
console.log('== packaging the extension');
run(process.execPath, ['scripts/package.mjs', '--out', path.join(cache, 'fix-until-green.vsix')], { env: { ...process.env, FUG_README_BASE_URL: `https://127.0.0.1:${readmePort}/` } });

console.log('== packaging the scripted test model extension');
const lmSrc = path.join(repo, 'test', 'e2e', 'lmExtension');
const lmOut = path.join(cache, 'lmExtension');
rmSync(lmOut, { recursive: true, force: true });
mkdirSync(lmOut, { recursive: true });
cpSync(path.join(lmSrc, 'package.json'), path.join(lmOut, 'package.json'));
await esbuild.build({ entryPoints: [path.join(lmSrc, 'extension.ts')], outfile: path.join(lmOut, 'extension.js'), bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], logLevel: 'warning' });
const vsce = path.join(repo, 'node_modules', '@vscode', 'vsce', 'vsce');
run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', path.join(cache, 'fug-scripted-lm.vsix')], { cwd: lmOut });
console.log(`== packaged in ${((Date.now() - t0) / 1000).toFixed(0)} s; running the specs`);

run(process.execPath, [path.join(repo, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--config', path.join(repo, 'test', 'e2e', '.mocharc.json'), ...process.argv.slice(2)]);
