// Builds model replies the way models write them: header lines, then a fenced unified diff.
import { createTwoFilesPatch } from 'diff';

export interface ReplyOptions {
  status?: string;
  confidence?: number;
  postMortem?: string;
}

export function diffOf(file: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${file}`, `b/${file}`, before, after, undefined, undefined, { context: 3 })
    .split('\n')
    .slice(1)
    .map((l) => l.replace(/\t$/, ''))
    .join('\n');
}

export function reply(diffs: string[], o: ReplyOptions = {}): string {
  return [
    `STATUS: ${o.status ?? 'in_progress'}`,
    `CONFIDENCE: ${o.confidence ?? 0.6}`,
    `POSTMORTEM: ${o.postMortem ?? 'first attempt'}`,
    '',
    ...diffs.map((d) => '```diff\n' + d + '```'),
    '',
  ].join('\n');
}
