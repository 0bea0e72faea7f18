// The packaged README's pictures (scripts/readmePictures.mjs): VS Code's Extensions page draws only
// https pictures, so they resolve under the base the release chooses; a repository address is a
// base only when it names a real host (package.json's `example.invalid` serves nothing); with no
// base the README goes without pictures rather than with broken ones; a release checks that every
// picture address answers with an image (here against a real local server).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { missingPictures, pictures, readmeBase, unreachablePictures, withoutPictures } from '../../../scripts/readmePictures.mjs';
import { REPO } from '../../support/fixtures';

const README = readFileSync(path.join(REPO, 'README.vsix.md'), 'utf8');
const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { repository: { url: string }; config?: { readmeBaseUrl?: string } };

describe("the packaged README's pictures", () => {
  it('resolve under the base the release chooses: the flag, then FUG_README_BASE_URL, then package.json config', () => {
    assert.deepEqual(readmeBase({ flag: 'https://a.fug.dev/x', env: 'https://b.fug.dev/', config: 'https://c.fug.dev/' }), { base: 'https://a.fug.dev/x/', from: '--readme-base-url' });
    assert.deepEqual(readmeBase({ env: 'https://b.fug.dev/', config: 'https://c.fug.dev/' }), { base: 'https://b.fug.dev/', from: 'FUG_README_BASE_URL' });
    assert.deepEqual(readmeBase({ env: ' ', config: 'https://c.fug.dev/media' }), { base: 'https://c.fug.dev/media/', from: 'package.json config.readmeBaseUrl' });
    assert.match(readmeBase({ env: 'http://b.fug.dev/' }).error ?? '', /FUG_README_BASE_URL must be an https address/);
    assert.match(readmeBase({ flag: 'https://cdn.example.com/' }).error ?? '', /reserved name/);
    assert.match(readmeBase({ flag: 'https://' }).error ?? '', /not a URL/);
  });

  it("use the repository's raw files only when it names a real host: this package.json's does not", () => {
    assert.deepEqual(readmeBase({ repository: { url: 'git+https://github.com/o/r.git' } }), { base: 'https://github.com/o/r/raw/HEAD/', from: 'package.json repository' });
    for (const url of ['https://example.invalid/fug.git', 'https://git.test/fug', 'https://example.org/fug', 'https://localhost/fug']) assert.match(readmeBase({ repository: url }).none ?? '', /reserved name/, url);
    assert.match(readmeBase({}).none ?? '', /names no repository/);
    assert.ok('none' in readmeBase({ repository: pkg.repository, config: pkg.config?.readmeBaseUrl }), "this repository's package.json names no real picture host: a release passes the base");
  });

  it('with no base, leave the README without its pictures (no broken image), its text whole', () => {
    assert.ok(pictures(README).length >= 3);
    const bare = withoutPictures(README);
    assert.deepEqual(pictures(bare), []);
    assert.doesNotMatch(bare, /\n\n\n/);
    assert.equal(bare.replace(/\s+/g, ' '), README.replace(/!\[[^\]]*\]\([^)]+\)/g, '').replace(/\s+/g, ' ').replace(/^ /, ''), 'only the pictures went');
    assert.equal(withoutPictures('Look: ![the panel](a.png) here.\n'), 'Look: the panel here.\n', 'a picture inside a sentence leaves its words');
  });

  it("are files of the package's folder (so they resolve under a base that publishes it)", () => {
    assert.deepEqual(missingPictures(README, (p) => existsSync(path.join(REPO, p))), []);
    assert.deepEqual(missingPictures('![a](media/gone.png) ![b](https://x.fug.dev/b.png)', () => false), ['media/gone.png']);
  });

  it('at a release, each address must answer with an image', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/ok.png') res.writeHead(200, { 'content-type': 'image/png' }).end();
      else if (req.url === '/page.png') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/x.png`;
      await new Promise((resolve) => closed.close(resolve));
      const bad = await unreachablePictures([`${base}/ok.png`, `${base}/gone.png`, `${base}/page.png`, gone]);
      assert.deepEqual(bad.map((x) => `${x.url.replace(base, '')} ${x.problem}`).slice(0, 2), ['/gone.png HTTP 404', '/page.png not an image (text/html)']);
      assert.equal(bad[2]?.url, gone);
      assert.match(bad[2]!.problem, /ECONNREFUSED/);
      assert.equal(bad.length, 3, 'the image answers');
    } finally {
      server.close();
    }
  });
});
