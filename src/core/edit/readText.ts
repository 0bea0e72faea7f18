// A workspace file's text for the source lines of a failure report. A failure may name a file that
// is gone or unreadable: the report then shows no source for it; any other fault is thrown.
import * as path from 'node:path';
import { readTextIfPresent } from '../fileText';

export function readWorkspaceText(root: string, rel: string): string | undefined {
  // Never blocks: a FIFO or device a failure names shows no source, as a missing file does.
  return readTextIfPresent(path.join(root, rel), ['EISDIR', 'EACCES', 'ENOTREG']);
}
