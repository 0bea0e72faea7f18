// The run-wide review's data and its pure updates, shared by the controller and the panel's webview
// (no Node or `vscode` import). Building it from the disk is review.ts's.
export type ReviewDecision = 'pending' | 'kept' | 'undone';

export interface ReviewFile {
  /** Workspace-relative, with `/`. */
  path: string;
  /** What the run did to the file, comparing its original with the disk now. */
  kind: 'added' | 'modified' | 'deleted';
  decision: ReviewDecision;
}

export interface ReviewState {
  /** Holds `before/<path>`: the original of every reviewed file that existed. */
  dir: string;
  files: ReviewFile[];
}

/** The review with `paths` set to `decision`. */
export function decide(review: ReviewState, paths: readonly string[], decision: ReviewDecision): ReviewState {
  const set = new Set(paths);
  return { ...review, files: review.files.map((f) => (set.has(f.path) ? { ...f, decision } : f)) };
}

export function pendingFiles(review: ReviewState | null | undefined): string[] {
  return (review?.files ?? []).filter((f) => f.decision === 'pending').map((f) => f.path);
}
