#!/usr/bin/env node
// Runs the fake model server (fakeOpenAI.ts) as its own process, for harnesses that cannot import it
// (e.g. a VS Code end-to-end run). Usage:
//   node test/support/fakeOpenAIServer.mjs [--script FILE.json] [--port N] [--log FILE.jsonl]
// FILE.json holds the options of startFakeOpenAI: {"replies": [...]} or {"script": [...]}, "usage",
// "faults", "apiKey", "models", "whenExhausted". Prints one JSON line {"url", "origin", "port", "pid"}
// on stdout once listening; stops on SIGTERM or SIGINT. While it runs: GET /__fake/requests lists
// the requests, POST /__fake/fault queues a fault for the next request, POST /__fake/script
// {"steps": [...]} appends to the script.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { tsImport } from 'tsx/esm/api';

const { values } = parseArgs({
  options: { script: { type: 'string' }, port: { type: 'string' }, log: { type: 'string' } },
  strict: true,
});
let options = {};
if (values.script) {
  try {
    options = JSON.parse(readFileSync(values.script, 'utf8'));
  } catch (e) {
    process.stderr.write(`fakeOpenAIServer: cannot read the script ${values.script}: ${e.message}\n`);
    process.exit(2);
  }
}
if (values.port !== undefined) options.port = Number(values.port);
if (values.log !== undefined) options.logFile = values.log;

const { startFakeOpenAI } = await tsImport('./fakeOpenAI.ts', import.meta.url);
const server = await startFakeOpenAI(options);
process.stdout.write(JSON.stringify({ url: server.url, origin: server.origin, port: server.port, pid: process.pid }) + '\n');

const stop = () => {
  server.close().then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`fakeOpenAIServer: close failed: ${e.message}\n`);
      process.exit(1);
    },
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
