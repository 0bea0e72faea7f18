// Where the packaged README's pictures come from (scripts/package.mjs). VS Code's Extensions page
// draws a README's pictures only from https addresses (its page allows `img-src https: data:` and
// its sanitizer drops relative and data: sources), and a .vsix installed from a file has no public
// home of its own: so the pictures are put where the release says (`--readme-base-url`,
// FUG_README_BASE_URL, or package.json `config.readmeBaseUrl`) and vsce's --baseImagesUrl points
// there. A repository address is used only when it names a real host: a reserved name (RFC 2606 /
// 6761: `example.invalid`, `*.test`, `example.com`…) serves nothing, and a picture pointing there
// draws as a broken image. With no base, the package's README leaves its pictures out (a page with
// no picture, not one with broken ones) and says so; `--release` refuses that, and checks that
// every picture address answers with an image before the package is made.

/** Hosts that never serve anything (RFC 2606, RFC 6761). */
const RESERVED = /(^|\.)(invalid|test|example|localhost)$|(^|\.)example\.(com|net|org)$/i;

/** Markdown pictures of a README: `![alt](target)`. */
const PICTURE = /!\[([^\]]*)\]\(([^)\s]+)\)/g;

/** The https folder address (ending in `/`) the README's relative pictures resolve against, or why there is none. */
export function readmeBase({ flag, env, config, repository }) {
  const chosen = [['--readme-base-url', flag], ['FUG_README_BASE_URL', env], ['package.json config.readmeBaseUrl', config]].find(([, v]) => typeof v === 'string' && v.trim() !== '');
  if (chosen) {
    const [from, value] = chosen;
    const url = value.trim();
    if (!/^https:\/\//.test(url)) return { error: `${from} must be an https address (VS Code's Extensions page draws no other pictures): ${url}` };
    let host;
    try {
      host = new URL(url).hostname;
    } catch {
      return { error: `${from} is not a URL: ${url}` };
    }
    if (RESERVED.test(host)) return { error: `${from} names ${host}, a reserved name that serves nothing` };
    return { base: url.endsWith('/') ? url : `${url}/`, from };
  }
  const repo = (typeof repository === 'string' ? repository : repository?.url)?.replace(/^git\+/, '').replace(/\.git$/, '');
  if (!repo) return { none: 'package.json names no repository' };
  let host;
  try {
    host = new URL(repo).hostname;
  } catch {
    return { none: `package.json's repository is not a URL: ${repo}` };
  }
  if (RESERVED.test(host)) return { none: `package.json's repository names ${host}, a reserved name that serves nothing` };
  if (!repo.startsWith('https://')) return { none: `package.json's repository is not an https address: ${repo}` };
  return { base: `${repo}/raw/HEAD/`, from: 'package.json repository' };
}

/** The README's picture targets, in order. */
export function pictures(markdown) {
  return [...markdown.matchAll(PICTURE)].map((m) => m[2]);
}

/** The README without its pictures: a line that is only a picture goes, with one blank line around it. */
export function withoutPictures(markdown) {
  return markdown
    .replace(/\n*^[ \t]*!\[[^\]]*\]\([^)\s]+\)[ \t]*$\n*/gm, '\n\n')
    .replace(PICTURE, (_, alt) => alt)
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+/, '');
}

/** Relative pictures that name no file of the package's folder (`exists(relativePath)`): they would not resolve under any base. */
export function missingPictures(markdown, exists) {
  return pictures(markdown).filter((p) => !/^[a-z]+:/i.test(p) && !exists(p.replace(/^\.\//, '').split(/[?#]/)[0]));
}

/** Each picture address that does not answer a HEAD (or GET) with 200 and an image: `[{url, problem}]`. */
export async function unreachablePictures(urls, fetchImpl = fetch) {
  const out = [];
  for (const url of urls) {
    try {
      let r = await fetchImpl(url, { method: 'HEAD', redirect: 'follow' });
      if (r.status === 405) r = await fetchImpl(url, { redirect: 'follow' });
      const type = r.headers.get('content-type') ?? '';
      if (r.status !== 200) out.push({ url, problem: `HTTP ${r.status}` });
      else if (!/^image\//.test(type)) out.push({ url, problem: `not an image (${type || 'no content-type'})` });
    } catch (e) {
      out.push({ url, problem: e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e) });
    }
  }
  return out;
}
