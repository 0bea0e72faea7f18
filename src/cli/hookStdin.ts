// The hook's input: one JSON document on stdin. A host may leave stdin open after writing it (or a
// wrapper may hold the pipe), so waiting for EOF could outlast the host's timeout: the document is
// taken as soon as the text read so far closes its top-level value, or whatever came by the
// deadline (readHookInput then says what is wrong with it). Bounded in size, too.

/** More than any hook input a host sends: the rest is not read. */
export const HOOK_STDIN_MAX_BYTES = 32 * 1024 * 1024;

/** Whether `text` is a whole JSON document. */
function isWholeDocument(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads `stream` until it holds a whole JSON document, ends, errs, passes the size bound, or
 * `deadline` (epoch ms) comes; then stops reading it (an open pipe never keeps the process alive).
 */
export function readHookStdin(stream: NodeJS.ReadableStream & { destroy?: () => void }, deadline: number, maxBytes = HOOK_STDIN_MAX_BYTES): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    // Parsed only when the text read so far ends as a document can (`}` or `]`): not once per chunk of a large input.
    let endsClosed = false;
    const text = (): string => Buffer.concat(chunks).toString('utf8');
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', finish);
      stream.off('error', finish);
      stream.pause();
      stream.destroy?.();
      resolve(text());
    };
    const onData = (c: Buffer | string): void => {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      chunks.push(b);
      size += b.length;
      const tail = b.toString('latin1').trimEnd();
      if (tail !== '') endsClosed = tail.endsWith('}') || tail.endsWith(']');
      if (size >= maxBytes || (endsClosed && isWholeDocument(text()))) finish();
    };
    const timer = setTimeout(finish, Math.max(0, deadline - Date.now()));
    timer.unref();
    stream.on('data', onData);
    stream.once('end', finish);
    stream.once('error', finish);
  });
}
