// The .vsix's README: README.vsix.md (what a user does in VS Code, not how to build this
// repository) with its screenshots inlined as data: URIs. VS Code's extension page loads no image
// relative to a local package (its CSP allows https: and data:), and the Marketplace would point
// relative links at the repository: inlined, the page shows them wherever it is opened.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The README text to package, read from `repo`. */
export function vsixReadme(repo) {
  return readFileSync(path.join(repo, 'README.vsix.md'), 'utf8').replace(/\]\((media\/screenshots\/[\w.-]+\.png)\)/g, (_m, rel) => {
    return `](data:image/png;base64,${readFileSync(path.join(repo, rel)).toString('base64')})`;
  });
}
