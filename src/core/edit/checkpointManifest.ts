// A checkpoint's manifest (checkpoint.json) and its reading, apart from the Checkpoint that writes
// and reverts: listing the stored runs (the interrupted-run offer at a window's start-up) reads
// manifests only, so it loads none of the write and restore code.
import * as path from 'node:path';
import { readRegularFile } from '../fileText';

export interface Entry {
  path: string;
  existed: boolean;
  blob?: string;
  mode?: number;
  /** Hash of what the run last wrote; null when it deleted the file; absent before its first write. */
  last?: string | null;
  /** Hash the write in progress will leave (null: a delete); absent when no write is in progress. */
  pending?: string | null;
}

export interface Manifest {
  version: 2;
  runId: string;
  root: string;
  createdAt: string;
  finished: boolean;
  reverted: boolean;
  /** A write batch started and has not ended: a crash happened mid-apply if the run is not finished. */
  writing: boolean;
  entries: Entry[];
  /** Folders (workspace-relative) that did not exist when a write of the run needed them. */
  createdDirs?: string[];
}

export const CHECKPOINT_FILE = 'checkpoint.json';

/** The manifest in checkpoint folder `dir`; undefined when there is none, an error when it is not one. */
export async function readManifest(dir: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await readRegularFile(path.join(dir, CHECKPOINT_FILE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let raw: Partial<Manifest> & { version?: number };
  try {
    raw = JSON.parse(text) as Partial<Manifest>;
  } catch (e) {
    throw new Error(`checkpoint ${path.join(dir, CHECKPOINT_FILE)} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof raw.runId !== 'string' || typeof raw.root !== 'string' || !Array.isArray(raw.entries) || raw.entries.some((e: unknown) => typeof e !== 'object' || e === null)) {
    throw new Error(`checkpoint ${path.join(dir, CHECKPOINT_FILE)} is not a checkpoint manifest`);
  }
  // Version 1 manifests lack the write log; their entries still hold every original.
  return {
    version: 2,
    runId: raw.runId,
    root: raw.root,
    createdAt: raw.createdAt ?? new Date(0).toISOString(),
    finished: raw.finished === true,
    reverted: raw.reverted === true,
    writing: raw.writing === true,
    entries: raw.entries,
    ...(Array.isArray(raw.createdDirs) ? { createdDirs: raw.createdDirs } : {}),
  };
}
