// A workspace file's text for the source lines of a failure report. A failure may name a file that
// is gone or unreadable: the report then shows no source for it; any other fault is thrown.
import * as path from 'node:path';
import { readRegularFileSync } from './regularFile';

export function readWorkspaceText(root: string, rel: string): string | undefined {
  try {
    // Never blocks: a FIFO or device a failure names shows no source, as a missing file does.
    return readRegularFileSync(path.join(root, rel));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES' || code === 'ENOTREG') return undefined;
    throw e;
  }
}
