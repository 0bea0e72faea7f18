// A workspace file's text for the source lines of a failure report. A failure may name a file that
// is gone or unreadable: the report then shows no source for it; any other fault is thrown.
import * as path from 'node:path';
import { readTextIfPresent } from '../fileText';

export function readWorkspaceText(root: string, rel: string): string | undefined {
  return readTextIfPresent(path.join(root, rel), ['EISDIR', 'EACCES']);
}
