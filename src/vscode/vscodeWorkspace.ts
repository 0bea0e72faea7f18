// The engine's Workspace port on VS Code: every batch of changes is one WorkspaceEdit, so each step
// is one undoable operation and open editors show the new text at once.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FileChange, Workspace } from '../core/edit/workspace';
import { bytesHash, CHANGED_ON_DISK, findFilesNamed, NotRegularFileError, oneLine, whyNotWritable, WriteError } from '../core/edit/workspace';
import type { Logger } from '../core/types';

/** A file the user has unsaved changes to: the run does not overwrite it (DESIGN §5). */
export class DirtyEditorError extends Error {
  constructor(readonly files: string[]) {
    super(`${files.join(', ')} ${files.length === 1 ? 'has' : 'have'} unsaved changes in the editor; the run will not overwrite them (save or revert, then run again)`);
    this.name = 'DirtyEditorError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch (e) {
    if (e instanceof TypeError) return undefined;
    throw e;
  }
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array): boolean {
  return a !== undefined && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

export class VscodeWorkspace implements Workspace {
  readonly root: string;

  constructor(
    root: string,
    private readonly logger: Logger,
    private readonly label = 'Fix Until Green',
  ) {
    this.root = path.resolve(root);
  }

  uri(rel: string): vscode.Uri {
    return vscode.Uri.file(path.join(this.root, ...rel.split('/')));
  }

  async read(rel: string): Promise<Uint8Array | undefined> {
    // A FIFO, socket, device or folder is refused before VS Code opens it (a FIFO would block).
    try {
      const st = await fs.stat(this.uri(rel).fsPath);
      if (!st.isFile()) throw new NotRegularFileError(rel, st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO (named pipe)' : st.isSocket() ? 'a socket' : 'a device');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw e;
    }
    try {
      return await vscode.workspace.fs.readFile(this.uri(rel));
    } catch (e) {
      if (e instanceof vscode.FileSystemError && (e.code === 'FileNotFound' || e.code === 'EntryNotFound')) return undefined;
      throw e;
    }
  }

  /** The edit parser's basename lookup (a whole file named only by a basename one file has), as the CLI's workspace does it. */
  async findByName(name: string): Promise<string[]> {
    return findFilesNamed(this.root, name);
  }

  async exists(rel: string): Promise<boolean> {
    try {
      await vscode.workspace.fs.stat(this.uri(rel));
      return true;
    } catch (e) {
      if (e instanceof vscode.FileSystemError && (e.code === 'FileNotFound' || e.code === 'EntryNotFound')) return false;
      throw e;
    }
  }

  /** Permission bits from the file system: VS Code's file API does not report them. */
  async mode(rel: string): Promise<number | undefined> {
    try {
      return (await fs.stat(this.uri(rel).fsPath)).mode & 0o7777;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async whyNotWritable(rel: string): Promise<string | undefined> {
    return whyNotWritable(this.root, rel);
  }

  async removeEmptyDir(rel: string): Promise<boolean> {
    try {
      await fs.rmdir(this.uri(rel).fsPath);
      return true;
    } catch (e) {
      if (['ENOTEMPTY', 'EEXIST', 'ENOENT', 'ENOTDIR'].includes((e as NodeJS.ErrnoException).code ?? '')) return false;
      throw e;
    }
  }

  /** An open editor with unsaved changes to the file: the engine never writes such a file. */
  async hasUnsavedChanges(rel: string): Promise<boolean> {
    return this.openDocument(this.uri(rel))?.isDirty === true;
  }

  private openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
    const key = uri.toString();
    return vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.toString() === key);
  }

  /** Throws DirtyEditorError naming every file of `changes` with unsaved edits. */
  assertNoDirtyEditors(changes: readonly FileChange[]): void {
    const dirty = changes.filter((c) => this.openDocument(this.uri(c.path))?.isDirty).map((c) => c.path);
    if (dirty.length > 0) throw new DirtyEditorError(dirty);
  }

  /**
   * Applies the batch as one WorkspaceEdit. Every file is checked first (its expected content, a
   * non-regular file or hard link in the way); when VS Code fails part way, the files it changed
   * are put back, newest first, whatever fails, and a WriteError names the file and the error.
   */
  async apply(changes: readonly FileChange[]): Promise<void> {
    if (changes.length === 0) return;
    this.assertNoDirtyEditors(changes);
    const before: { path: string; content: Uint8Array | null; mode: number | undefined; wrote: Uint8Array | null }[] = [];
    for (const c of changes) {
      const disk = (await this.read(c.path)) ?? null;
      if (c.expect !== undefined && bytesHash(disk) !== c.expect) {
        throw new WriteError(`${c.path} changed on disk since it was checked; it was not overwritten`, c.path, undefined, [], CHANGED_ON_DISK);
      }
      const why = c.content !== null ? whyNotWritable(this.root, c.path) : undefined;
      if (why !== undefined) throw new WriteError(`could not write ${c.path}: ${why}`, c.path, undefined);
      before.push({ path: c.path, content: disk, mode: disk !== null ? await this.mode(c.path) : undefined, wrote: c.content });
    }
    try {
      await this.applyEdit(changes);
    } catch (e) {
      const notRestored = await this.rollBack(before);
      const failed = e instanceof WriteError ? e.path : changes[0]!.path;
      const tail = notRestored.length > 0 ? `; ${notRestored.length} file(s) could NOT be put back: ${notRestored.map((n) => `${n.path} (${n.error})`).join(', ')}` : '; the files already written were put back';
      throw new WriteError(`${e instanceof WriteError ? e.message : `could not write ${changes.map((c) => c.path).join(', ')}: ${oneLine(e)}`}${tail}`, failed, e, notRestored);
    }
  }

  /** Puts back, newest first, the files whose disk content is what the batch wrote (whole or torn). */
  private async rollBack(before: { path: string; content: Uint8Array | null; mode: number | undefined; wrote: Uint8Array | null }[]): Promise<{ path: string; error: string }[]> {
    const left: { path: string; error: string }[] = [];
    for (const b of [...before].reverse()) {
      try {
        const disk = (await this.read(b.path)) ?? null;
        if (bytesHash(disk) === bytesHash(b.content)) continue;
        const ours = disk === null ? b.wrote === null : b.wrote !== null && disk.length <= b.wrote.length && bytesHash(disk) === bytesHash(b.wrote.subarray(0, disk.length));
        if (!ours) {
          left.push({ path: b.path, error: 'changed by someone else during the write; left as it is' });
          continue;
        }
        const file = this.uri(b.path).fsPath;
        if (b.content === null) await fs.rm(file, { force: true });
        else {
          await fs.writeFile(file, b.content);
          if (b.mode !== undefined) await fs.chmod(file, b.mode);
        }
      } catch (e) {
        left.push({ path: b.path, error: oneLine(e) });
      }
    }
    return left;
  }

  private async applyEdit(changes: readonly FileChange[]): Promise<void> {
    const edit = new vscode.WorkspaceEdit();
    const meta: vscode.WorkspaceEditEntryMetadata = { label: this.label, needsConfirmation: false };
    // Open documents get a text edit (the editor updates in place and Undo works there); closed
    // files get a file operation with the exact bytes.
    const textEdited: { doc: vscode.TextDocument; change: FileChange & { content: Uint8Array } }[] = [];
    for (const c of changes) {
      const uri = this.uri(c.path);
      if (c.content === null) {
        edit.deleteFile(uri, { ignoreIfNotExists: true }, meta);
        continue;
      }
      const doc = this.openDocument(uri);
      const text = doc ? decodeText(c.content) : undefined;
      if (doc && text !== undefined) {
        const full = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
        // The document holds text without the byte-order mark; saving keeps the file's encoding.
        edit.replace(uri, full, text.startsWith('\uFEFF') ? text.slice(1) : text, meta);
        textEdited.push({ doc, change: { path: c.path, content: c.content } });
      } else {
        edit.createFile(uri, { overwrite: true, contents: c.content }, meta);
      }
    }
    const ok = await vscode.workspace.applyEdit(edit, { isRefactoring: false });
    if (!ok) throw new Error(`VS Code did not apply the edit to ${changes.map((c) => c.path).join(', ')}`);
    for (const { doc, change } of textEdited) {
      const saved = await doc.save();
      const disk = await this.read(change.path);
      if (!saved || !sameBytes(disk, change.content)) {
        // Save participants (format on save, trim whitespace, final newline) may change the bytes;
        // the checks must see exactly what the step proposed.
        this.logger.warn(`${change.path}: the saved file differed from the step's edit (save participants or encoding); wrote the exact bytes`);
        await vscode.workspace.fs.writeFile(this.uri(change.path), change.content);
      }
    }
    // Restores carry the original permission bits (a recreated script stays executable).
    for (const c of changes) if (c.content !== null && c.mode !== undefined) await fs.chmod(this.uri(c.path).fsPath, c.mode);
  }
}
