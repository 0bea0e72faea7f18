#!/usr/bin/env node
// @ts-check
'use strict';
// Vitest's `typecheck.checker` where a warm tsc check of the same program is kept (../vitestTypecheck.ts
// writes this file into a private folder beside its socket `s` and names it on the check's command
// line). Vitest runs it as it runs `tsc`: with its own tsc arguments, in its root, reading stdout and
// the exit code. Where the arguments are exactly the shape Vitest 3.2 to 4 gives (`--noEmit --pretty
// false --incremental --tsBuildInfoFile FILE [-p ABSOLUTE]`), it asks the warm checker (over the
// socket) for the program's diagnostics and prints them as `tsc --pretty false` prints them, exiting
// as it exits. Anything else, or any answer short of that (no socket, no program built the same
// way, the checker busy or broken), runs the `tsc` Vitest would have run: the first on this
// process's PATH (tinyexec gave it Vitest's PATH followed by the node_modules/.bin folders up from
// Vitest's cwd, where it looked the same name up), with the same arguments and stdio, passing on its
// exit; so the worst case is what the command did without this file.
const net = require('node:net');
const path = require('node:path');
const childProcess = require('node:child_process');

const args = process.argv.slice(2);

/** @param {readonly string[]} a */
function knownShape(a) {
  const head = ['--noEmit', '--pretty', 'false', '--incremental', '--tsBuildInfoFile'];
  if (a.length !== 6 && a.length !== 8) return false;
  if (!head.every((x, i) => a[i] === x) || !a[5] || a[5].startsWith('-')) return false;
  return a.length === 6 || (a[6] === '-p' && path.isAbsolute(/** @type {string} */ (a[7])));
}

/** Runs tsc itself: what Vitest would have run without this file. */
function realTsc() {
  const child = childProcess.spawn('tsc', args, { stdio: 'inherit' });
  const forward = (/** @type {NodeJS.Signals} */ s) => () => child.kill(s);
  for (const s of /** @type {NodeJS.Signals[]} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])) process.on(s, forward(s));
  child.on('error', (e) => {
    process.stderr.write(`tsc could not start: ${e.message}\n`);
    process.exitCode = 127;
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exitCode = code ?? 1;
  });
}

if (!knownShape(args)) {
  realTsc();
} else {
  let answered = false;
  let reply = '';
  const socket = net.connect(path.join(__dirname, 's'));
  socket.setEncoding('utf8');
  socket.on('connect', () => socket.write(`${JSON.stringify({ shim: path.basename(__filename, '.cjs'), cwd: process.cwd(), args })}\n`));
  socket.on('data', (d) => {
    reply += d;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    /** @type {{ output?: unknown, exitCode?: unknown } | undefined} */
    let r;
    try {
      r = JSON.parse(reply);
    } catch {
      r = undefined;
    }
    if (answered) return;
    answered = true;
    if (r && typeof r.output === 'string' && typeof r.exitCode === 'number') {
      const code = r.exitCode;
      process.stdout.write(r.output, () => {
        process.exitCode = code;
      });
    } else {
      realTsc();
    }
  });
}
