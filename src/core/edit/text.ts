// A file's text as lines, with what must survive an edit: BOM, each line's ending, final newline.

export type Eol = '\n' | '\r\n' | '';

export interface Line {
  /** The line without its ending (a lone trailing \r of a mixed file stays out too). */
  text: string;
  eol: Eol;
}

export interface TextFile {
  bom: boolean;
  lines: Line[];
  /** The ending new lines get: the file's majority ending. */
  eol: '\n' | '\r\n';
  /** Whether the last line ends with a line break (an empty file counts as having one). */
  finalNewline: boolean;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const BOM = [0xef, 0xbb, 0xbf];
/** How far into a file binary detection looks, like git's heuristic. */
const SNIFF_BYTES = 8000;

export type DecodeResult = { ok: true; file: TextFile } | { ok: false; reason: string };

export function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2];
}

/** Text files are UTF-8 without NUL bytes; anything else is refused rather than re-encoded. */
export function decodeText(bytes: Uint8Array): DecodeResult {
  const sniff = bytes.subarray(0, SNIFF_BYTES);
  if (sniff.includes(0)) return { ok: false, reason: 'binary file (it contains NUL bytes)' };
  const bom = hasBom(bytes);
  let text: string;
  try {
    text = UTF8.decode(bom ? bytes.subarray(3) : bytes);
  } catch (e) {
    return { ok: false, reason: `binary or non-UTF-8 file (${(e as Error).message})` };
  }
  if (text.includes('\0')) return { ok: false, reason: 'binary file (it contains NUL bytes)' };
  return { ok: true, file: splitText(text, bom) };
}

export function splitText(text: string, bom = false): TextFile {
  const lines: Line[] = [];
  let crlf = 0;
  let lf = 0;
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) break;
    if (nl > start && text.charCodeAt(nl - 1) === 13) {
      lines.push({ text: text.slice(start, nl - 1), eol: '\r\n' });
      crlf++;
    } else {
      lines.push({ text: text.slice(start, nl), eol: '\n' });
      lf++;
    }
    start = nl + 1;
  }
  const finalNewline = start === text.length;
  if (!finalNewline) lines.push({ text: text.slice(start), eol: '' });
  return { bom, lines, eol: crlf > lf ? '\r\n' : '\n', finalNewline };
}

export function joinText(file: TextFile): string {
  let s = '';
  for (const l of file.lines) s += l.text + l.eol;
  return s;
}

export function encodeText(file: TextFile): Uint8Array {
  const body = Buffer.from(joinText(file), 'utf8');
  return file.bom ? Buffer.concat([Buffer.from(BOM), body]) : body;
}

/**
 * Gives `lines` the file's final-newline state: the last line ends like the file's other lines,
 * or has no ending when the file had none.
 */
export function withFinalNewline(lines: Line[], finalNewline: boolean, eol: '\n' | '\r\n'): Line[] {
  if (lines.length === 0) return lines;
  const out = lines.slice();
  const last = out[out.length - 1]!;
  if (finalNewline && last.eol === '') out[out.length - 1] = { text: last.text, eol };
  if (!finalNewline && last.eol !== '') out[out.length - 1] = { text: last.text, eol: '' };
  for (let i = 0; i < out.length - 1; i++) {
    // A line that was last and gained a follower needs an ending now.
    if (out[i]!.eol === '') out[i] = { text: out[i]!.text, eol };
  }
  return out;
}
