// `fix-until-green parse --parser P [--root DIR]`: a check's output on stdin, its failures out (DESIGN §8).
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { PARSER_IDS } from '../core/settings';
import type { ParserId } from '../core/types';
import { failureIdentity } from '../core/verify/identity';
import { parseOutput } from '../core/verify/parsers/index';
import { UsageError } from './errors';
import type { CliIo } from './runCommand';

export interface ParseIo extends CliIo {
  /** The whole of stdin, as bytes (default: the process's stdin). */
  readStdin?: () => Promise<Buffer>;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks);
}

export async function parseCommand(argv: string[], io: ParseIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      parser: { type: 'string' },
      root: { type: 'string' },
      cwd: { type: 'string' },
      check: { type: 'string' },
      'exit-code': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.parser === undefined) throw new UsageError(`--parser is required (one of ${PARSER_IDS.join(', ')})`);
  if (!(PARSER_IDS as readonly string[]).includes(values.parser)) throw new UsageError(`--parser: "${values.parser}" is not one of ${PARSER_IDS.join(', ')}`);
  const parser = values.parser as ParserId;
  const root = path.resolve(values.root ?? '.');
  // The root need not exist here (output captured on another machine); a file where it should be is a mistake.
  if (existsSync(root) && !statSync(root).isDirectory()) throw new UsageError(`--root: ${root} is not a directory`);
  const cwd = values.cwd !== undefined ? path.resolve(root, values.cwd) : root;
  let exitCode: number | null = 0;
  if (values['exit-code'] !== undefined) {
    if (!/^\d+$/.test(values['exit-code'])) throw new UsageError(`--exit-code: "${values['exit-code']}" is not a whole number`);
    exitCode = Number(values['exit-code']);
  }
  const check = values.check ?? parser;
  // Decoded as the runner decodes a check's output: UTF-8, invalid bytes replaced.
  const output = new TextDecoder('utf-8', { fatal: false }).decode(await (io.readStdin ? io.readStdin() : readAll(process.stdin)));
  const failures = parseOutput(parser, output, { check, root, cwd, exitCode });
  io.stdout(JSON.stringify({ failures, failureHash: failureIdentity(failures, { root }) }, null, 2));
  return 0;
}
