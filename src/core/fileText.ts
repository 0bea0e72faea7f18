// A file's text where a missing file is an answer, not a fault: a package.json a folder may lack, a
// lock or a record another process may have removed. Every such read goes through here, so "missing"
// means the same everywhere; any other error (permissions, a full disk, a broken file system) is thrown.
import { readFileSync } from 'node:fs';

/**
 * `file`'s text (UTF-8), or undefined when it is not there (`ENOENT`). `alsoMissing` names more error
 * codes the caller reads as "no file" (`ENOTDIR`: a part of the path is a file; `EISDIR`: a folder
 * where the file would be; `EACCES` for a report's source lines).
 */
export function readTextIfPresent(file: string, alsoMissing: readonly string[] = []): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENOENT' || alsoMissing.includes(code)) return undefined;
    throw e;
  }
}
