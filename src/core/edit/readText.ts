// A workspace file's text for the source lines of a failure report. A failure may name a file that
// is gone or unreadable: the report then shows no source for it; any other fault is thrown.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export function readWorkspaceText(root: string, rel: string): string | undefined {
  try {
    return readFileSync(path.join(root, rel), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') return undefined;
    throw e;
  }
}
