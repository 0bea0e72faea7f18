// Reads the STATUS / CONFIDENCE / POSTMORTEM header a reply carries. Tolerant; never throws.

export type ModelStatus = 'in_progress' | 'done' | 'blocked';

export interface SelfReport {
  status?: ModelStatus;
  confidence?: number;
  postMortem?: string;
  /** What could not be read, for the trace. */
  problems: string[];
}

export const POSTMORTEM_MAX_CHARS = 600;

const FIELD = /^[\s>*_#-]*\**_*\s*(status|confidence|post[\s_-]?mortem)\s*\**_*\s*[:=]\s*\**_*\s*(.*)$/i;

function clean(v: string): string {
  return v.replace(/^[*_`\s]+|[*_`\s]+$/g, '');
}

export function parseSelfReport(reply: string): SelfReport {
  const problems: string[] = [];
  const out: SelfReport = { problems };
  const lines = reply.replace(/\r\n?/g, '\n').split('\n');
  let pm: string[] | undefined;
  let collecting = false;
  for (const line of lines) {
    if (collecting) {
      // The post-mortem runs until a blank line, a fence, a diff or another field.
      if (line.trim() === '' || /^(```|---|\+\+\+|@@|<<<<<<<|diff )/.test(line) || FIELD.test(line)) collecting = false;
      else {
        pm!.push(line.trim());
        continue;
      }
    }
    const m = FIELD.exec(line);
    if (!m) continue;
    const key = m[1]!.toLowerCase().replace(/[\s_-]/g, '');
    const value = clean(m[2] ?? '');
    if (key === 'status' && out.status === undefined) {
      const v = value.toLowerCase().replace(/[\s-]+/g, '_');
      if (v === 'in_progress' || v === 'done' || v === 'blocked') out.status = v;
      else problems.push(`STATUS "${value}" is not one of in_progress, done, blocked`);
    } else if (key === 'confidence' && out.confidence === undefined) {
      const pct = /^(\d+(?:\.\d+)?)\s*%$/.exec(value);
      const n = pct ? Number(pct[1]) / 100 : /^\d*\.?\d+$/.test(value) ? Number(value) : NaN;
      if (Number.isFinite(n) && n >= 0 && n <= 1) out.confidence = n;
      else problems.push(`CONFIDENCE "${value}" is not a number from 0 to 1`);
    } else if (key === 'postmortem' && pm === undefined) {
      pm = value === '' ? [] : [value];
      collecting = true;
    }
  }
  if (pm !== undefined) {
    const text = pm.join(' ').replace(/\s+/g, ' ').trim();
    if (text !== '') out.postMortem = text.length > POSTMORTEM_MAX_CHARS ? text.slice(0, POSTMORTEM_MAX_CHARS - 1) + '…' : text;
  }
  if (out.status === undefined && !problems.some((p) => p.startsWith('STATUS'))) problems.push('no STATUS line');
  if (out.confidence === undefined && !problems.some((p) => p.startsWith('CONFIDENCE'))) problems.push('no CONFIDENCE line');
  if (out.postMortem === undefined) problems.push('no POSTMORTEM line');
  return out;
}
