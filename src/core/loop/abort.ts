// Ends a wait the moment a signal aborts, whether or not the awaited work honours the signal.
// The work itself is still told (it got the same signal) and cleans up on its own time; the loop
// does not wait for it, so a time limit or a cancel stops the run promptly even when a provider or
// a check is slow to notice.

export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new Error(typeof r === 'string' ? r : 'aborted');
}

export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    // The late result or failure of abandoned work lands on a settled promise and is dropped there.
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
