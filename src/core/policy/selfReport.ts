// Reads the STATUS / CONFIDENCE / POSTMORTEM header a reply carries (DESIGN §2). Tolerant of case,
// markdown emphasis, list and quote markers, and missing fields; never throws. What it cannot read
// it names in `problems`, which the trace records; an unreadable field counts as absent.

export type ModelStatus = 'in_progress' | 'done' | 'blocked';

export const MODEL_STATUSES: readonly ModelStatus[] = ['in_progress', 'done', 'blocked'];

export interface SelfReport {
  status?: ModelStatus;
  confidence?: number;
  postMortem?: string;
  /** What could not be read, for the trace. Empty when all three fields were read. */
  problems: string[];
}

export const POSTMORTEM_MAX_CHARS = 600;

// Optional list/quote/heading markers and emphasis around the field name, then `:` or `=`.
const FIELD = /^[\s>#*_-]*?[*_`]*\s*(status|confidence|post[\s_-]?mortem)\s*[*_`]*\s*[:=]\s*(.*)$/i;
const FENCE = /^\s*(```|~~~)/;
// Where the edits begin: headers are only read before them.
const EDITS_START = /^(--- \S|\+\+\+ \S|@@ |diff --git |<<<<<<< SEARCH)/;

/** Strips emphasis, code ticks, quotes and trailing sentence punctuation around a value. */
function clean(v: string): string {
  return v
    .trim()
    .replace(/^[*_`"'\s]+/, '')
    .replace(/[*_`"'\s]+$/, '')
    .replace(/[.,;!]+$/, '')
    .trim();
}

function parseStatus(value: string): ModelStatus | undefined {
  const v = clean(value).toLowerCase().replace(/[\s-]+/g, '_');
  if (v === 'inprogress') return 'in_progress';
  return (MODEL_STATUSES as readonly string[]).includes(v) ? (v as ModelStatus) : undefined;
}

/**
 * A number from 0 to 1, a percentage, or a leading number followed by a remark (`0.8 (fairly sure)`).
 * Words (`high`) and numbers out of range (`1.7`) are not guessed at.
 */
export function parseConfidence(value: string): number | undefined {
  const v = clean(value).replace(/^(\d*)[,](\d+)/, '$1.$2');
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(%)?(?=$|[\s(/,;])/.exec(v);
  if (!m) return undefined;
  const n = m[2] ? Number(m[1]) / 100 : Number(m[1]);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
}

function truncate(text: string): string {
  return text.length > POSTMORTEM_MAX_CHARS ? text.slice(0, POSTMORTEM_MAX_CHARS - 1) + '…' : text;
}

export function parseSelfReport(reply: string | null | undefined): SelfReport {
  const problems: string[] = [];
  const out: SelfReport = { problems };
  const text = typeof reply === 'string' ? reply : '';
  if (text.trim() === '') {
    problems.push('empty reply: no STATUS, CONFIDENCE or POSTMORTEM');
    return out;
  }
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let pm: string[] | undefined;
  let collecting = false;
  let inFence = false;
  for (const line of lines) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      collecting = false;
      continue;
    }
    if (inFence) continue;
    if (EDITS_START.test(line)) break;
    if (collecting) {
      // The post-mortem runs until a blank line or another field.
      if (line.trim() === '' || FIELD.test(line)) collecting = false;
      else {
        pm!.push(line.trim());
        continue;
      }
    }
    const m = FIELD.exec(line);
    if (!m) continue;
    const key = m[1]!.toLowerCase().replace(/[\s_-]/g, '');
    const raw = m[2] ?? '';
    if (key === 'status') {
      if (out.status !== undefined || problems.some((p) => p.startsWith('STATUS'))) continue;
      const s = parseStatus(raw);
      if (s) out.status = s;
      else problems.push(`STATUS "${clean(raw)}" is not one of in_progress, done, blocked; read as absent`);
    } else if (key === 'confidence') {
      if (out.confidence !== undefined || problems.some((p) => p.startsWith('CONFIDENCE'))) continue;
      const n = parseConfidence(raw);
      if (n !== undefined) out.confidence = n;
      else problems.push(`CONFIDENCE "${clean(raw)}" is not a number from 0 to 1; read as absent`);
    } else if (pm === undefined) {
      const first = raw.trim().replace(/^[*_`\s]+/, '');
      pm = first === '' ? [] : [first];
      collecting = true;
    }
  }
  if (pm !== undefined) {
    const joined = pm.join(' ').replace(/\*\*/g, '').replace(/\s+/g, ' ').trim();
    if (joined !== '') out.postMortem = truncate(joined);
  }
  if (out.status === undefined && !problems.some((p) => p.startsWith('STATUS'))) problems.push('no STATUS line');
  if (out.confidence === undefined && !problems.some((p) => p.startsWith('CONFIDENCE'))) problems.push('no CONFIDENCE line');
  if (out.postMortem === undefined) problems.push(pm === undefined ? 'no POSTMORTEM line' : 'POSTMORTEM is empty');
  return out;
}

/** The last `keep` post-mortems, oldest first, each already bounded to POSTMORTEM_MAX_CHARS. */
export class PostMortems {
  private readonly items: { step: number; text: string }[] = [];

  constructor(private readonly keep = 3) {}

  add(step: number, text: string): void {
    this.items.push({ step, text: truncate(text) });
    while (this.items.length > this.keep) this.items.shift();
  }

  get texts(): string[] {
    return this.items.map((i) => i.text);
  }

  get entries(): { step: number; text: string }[] {
    return this.items.map((i) => ({ ...i }));
  }
}
