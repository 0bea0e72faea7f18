// @ts-check
'use strict';
// The warm linter's child process (../warmEslint.ts starts it with `node FILE INIT`, INIT the last
// argument: the workspace's eslint `lib/cli.js`, as JSON). It loads the linted project's own ESLint
// (never ours) once and, on each `run`, calls its CLI in-process with the command's arguments,
// capturing what it prints (stdout and stderr apart, and both in order) and the exit code it returns:
// the bytes the command prints.
//
// A process kept between runs keeps state a cold command would not have (the config's modules, a
// plugin's caches, typescript-eslint's programs), so it is reused only while nothing but its lint
// inputs changed: every module it loaded (require.cache, and ESM files through a `module.register`
// load hook whose thread reports back over a MessageChannel) and every path it read, stat'ed or
// listed through fs is recorded with its mtime, size and inode (a directory's listing, whole). Before
// each run each one is looked at again, except the files the last run linted (ESLint reads those
// afresh); any difference answers `stale` and the parent starts a fresh child. typescript-eslint's
// caches are cleared before every run (its programs would not see a linted file's new text). Anything
// unexpected (the CLI throws, an uncaught error, a process warning a fresh process would print again)
// answers `fallback`: the command runs cold and prints what it prints. It exits when its parent goes.
const fs = require('node:fs');
const path = require('node:path');
const nodeModule = require('node:module');
const url = require('node:url');

/** @type {{ cli: string }} */
const init = JSON.parse(process.argv[process.argv.length - 1]);
/** @param {object} m */
const send = (m) => {
  if (process.connected && process.send) process.send(m);
};
process.on('disconnect', () => process.exit(0));

// What a path looked like when first seen: `f:mtime:size:ino`, `d` (a directory), `missing`.
const stat0 = fs.statSync;
const readdir0 = fs.readdirSync;
/** @param {string} p */
function sig(p) {
  try {
    const s = stat0(p);
    return s.isDirectory() ? 'd' : `f:${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return 'missing';
  }
}
/** @param {string} p */
function listing(p) {
  try {
    return readdir0(p).sort().join('\0');
  } catch {
    return '\0missing';
  }
}

/** @type {Map<string, string>} */
const files = new Map();
/** @type {Map<string, string>} */
const dirs = new Map();
/** Paths loaded as modules: never taken as lint inputs. */
const modules = new Set();
/** Paths written during a run: their signature is taken again when it ends. */
const written = new Set();
/** @param {unknown} p */
function abs(p) {
  if (typeof p === 'string') return path.resolve(p);
  if (p instanceof URL && p.protocol === 'file:') return url.fileURLToPath(p);
  if (Buffer.isBuffer(p)) return path.resolve(p.toString('utf8'));
  return undefined;
}
/** @param {unknown} p */
function noteFile(p) {
  const a = abs(p);
  if (a !== undefined && !files.has(a)) files.set(a, sig(a));
}
/** @param {unknown} p */
function noteDir(p) {
  const a = abs(p);
  if (a !== undefined && !dirs.has(a)) dirs.set(a, listing(a));
}
/** @param {unknown} p */
function noteWrite(p) {
  const a = abs(p);
  if (a !== undefined) written.add(a);
}

/**
 * Wraps `obj[name]` so its first argument is noted before the call; a non-function or missing
 * method is left alone (an older Node).
 * @param {any} obj @param {string} name @param {(p: unknown) => void} note @param {number} [arg]
 */
function watch(obj, name, note, arg = 0) {
  const orig = obj[name];
  if (typeof orig !== 'function') return;
  /** @this {unknown} @param {...unknown} args */
  const wrapped = function (...args) {
    try {
      note(args[arg]);
    } catch {
      // A path we cannot read is the call's own business.
    }
    return orig.apply(this, args);
  };
  Object.defineProperties(wrapped, Object.getOwnPropertyDescriptors(orig));
  obj[name] = wrapped;
}
for (const n of ['readFileSync', 'readFile', 'statSync', 'stat', 'lstatSync', 'lstat', 'existsSync', 'exists', 'accessSync', 'access', 'openSync', 'open', 'realpathSync', 'realpath']) watch(fs, n, noteFile);
for (const n of ['readFile', 'stat', 'lstat', 'access', 'open', 'realpath']) watch(fs.promises, n, noteFile);
for (const n of ['readdirSync', 'readdir', 'opendirSync', 'opendir']) watch(fs, n, noteDir);
for (const n of ['readdir', 'opendir']) watch(fs.promises, n, noteDir);
for (const n of ['writeFileSync', 'writeFile', 'appendFileSync', 'appendFile', 'unlinkSync', 'unlink', 'rmSync', 'rm', 'mkdirSync', 'mkdir']) watch(fs, n, noteWrite);
for (const n of ['writeFile', 'appendFile', 'unlink', 'rm', 'mkdir']) watch(fs.promises, n, noteWrite);
for (const n of ['renameSync', 'rename', 'copyFileSync', 'copyFile']) watch(fs, n, noteWrite, 1);
for (const n of ['rename', 'copyFile']) watch(fs.promises, n, noteWrite, 1);
nodeModule.syncBuiltinESMExports();

// ESM files (the flat config, what it imports) are loaded off the main thread's fs: a load hook
// reports each file with its signature, taken as it loads.
if (typeof nodeModule.register !== 'function') {
  send({ type: 'fallback', reason: `Node ${process.version} has no module.register: the ES modules ESLint loads could not be watched` });
  process.exit(0);
}
const workerThreads = require('node:worker_threads');
const channel = new workerThreads.MessageChannel();
channel.port1.on('message', (/** @type {{ path: string, sig: string }} */ m) => {
  modules.add(m.path);
  if (!files.has(m.path)) files.set(m.path, m.sig);
});
channel.port1.unref();
const HOOKS = `
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) {
  if (url.startsWith('file:')) {
    const p = fileURLToPath(url.replace(/[?#].*$/, ''));
    let sig = 'missing';
    try { const s = statSync(p); sig = s.isDirectory() ? 'd' : 'f:' + s.mtimeMs + ':' + s.size + ':' + s.ino; } catch {}
    port.postMessage({ path: p, sig });
  }
  return next(url, context);
}`;
nodeModule.register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { port: channel.port2 }, transferList: [channel.port2] });

// What the CLI prints during a run: [1 stdout | 2 stderr, text], in order.
/** @type {[number, string][] | undefined} */
let capture;
/** @param {NodeJS.WriteStream} stream @param {number} fd */
function captureWrites(stream, fd) {
  const orig = stream.write.bind(stream);
  /** @param {unknown} chunk @param {...unknown} rest */
  stream.write = /** @type {any} */ (
    function (/** @type {any} */ chunk, /** @type {any[]} */ ...rest) {
      if (!capture) return orig(chunk, ...rest);
      const enc = typeof rest[0] === 'string' ? /** @type {BufferEncoding} */ (rest[0]) : 'utf8';
      capture.push([fd, typeof chunk === 'string' ? Buffer.from(chunk, enc).toString('utf8') : Buffer.from(/** @type {Uint8Array} */ (chunk)).toString('utf8')]);
      const cb = rest.find((r) => typeof r === 'function');
      if (cb) process.nextTick(/** @type {() => void} */ (cb));
      return true;
    }
  );
}
captureWrites(process.stdout, 1);
captureWrites(process.stderr, 2);

/** A reason no run of this process can be warm any more (it printed what a fresh one prints again). */
let tainted = /** @type {string | undefined} */ (undefined);
/** The error that escaped during the current run (the command would print ESLint's crash text). */
let escaped = /** @type {string | undefined} */ (undefined);
process.on('warning', (w) => {
  tainted ??= `a process warning (${w.name}: ${w.message.split('\n')[0]}), which a fresh process prints again`;
});
/** @param {unknown} e */
const onEscape = (e) => {
  if (capture) escaped = e instanceof Error ? e.message : String(e);
  else process.exit(70);
};
process.on('uncaughtException', onEscape);
process.on('unhandledRejection', onEscape);

/** @type {{ execute?: (args: string[], text: null, allow: boolean) => Promise<number> }} */
let cli;
try {
  cli = require(init.cli);
} catch (e) {
  send({ type: 'fallback', reason: `the workspace's ESLint could not be loaded: ${/** @type {Error} */ (e).message.split('\n')[0]}` });
  process.exit(0);
}
if (typeof cli.execute !== 'function') {
  send({ type: 'fallback', reason: `the workspace's ESLint (${init.cli}) has no cli.execute` });
  process.exit(0);
}

// The files a run linted, from the results of every ESLint class the CLI may use (ESLint, FlatESLint).
/** @type {Set<string>} */
let linted = new Set();
const ESLINT_LIB = path.dirname(init.cli) + path.sep;
/** @type {Set<Function>} */
const wrappedClasses = new Set();
function wrapLintFiles() {
  for (const [key, m] of Object.entries(require.cache)) {
    if (!key.startsWith(ESLINT_LIB) || !m) continue;
    for (const C of Object.values(m.exports ?? {})) {
      if (typeof C !== 'function' || wrappedClasses.has(C) || typeof C.prototype?.lintFiles !== 'function') continue;
      wrappedClasses.add(C);
      const orig = C.prototype.lintFiles;
      C.prototype.lintFiles = async function (/** @type {unknown[]} */ ...args) {
        const results = await orig.apply(this, args);
        for (const r of Array.isArray(results) ? results : []) if (typeof r?.filePath === 'string') linted.add(r.filePath);
        return results;
      };
    }
  }
}
wrapLintFiles();

/** Module files loaded by require, marked as such. */
function noteModules() {
  for (const key of Object.keys(require.cache)) {
    if (!path.isAbsolute(key)) continue;
    modules.add(key);
    if (!files.has(key)) files.set(key, sig(key));
  }
}
noteModules();

/** Why this process is not what a fresh one would be for the next run; undefined when it is. */
function staleReason() {
  for (const [p, s] of files) {
    if (linted.has(p) && !modules.has(p)) {
      if (sig(p) === 'missing') return `${p}, linted last time, is gone`;
      continue;
    }
    if (sig(p) !== s) return `${p} changed`;
  }
  for (const [d, l] of dirs) if (listing(d) !== l) return `the entries of ${d} changed`;
  return undefined;
}

const ESTREE = /[\\/]@typescript-eslint[\\/]typescript-estree[\\/]dist[\\/](index|parser)\.js$/;

/**
 * typescript-eslint keeps programs between parses: cleared, a run builds them from the files as they
 * are. `clearCaches` leaves out the count of parses per file, by which a single run (CI=true, as
 * checks run) takes a file's second parse for a --fix pass and parses it with no types of the
 * other files: it is reset too, where the package has it.
 */
function clearTypedCaches() {
  for (const [key, m] of Object.entries(require.cache)) {
    if (!ESTREE.test(key)) continue;
    for (const name of ['clearCaches', 'clearParseAndGenerateServicesCalls']) {
      const clear = m?.exports?.[name];
      if (typeof clear === 'function') clear();
    }
  }
}

/** @param {{ id: number, args: string[] }} m */
async function run(m) {
  const stale = staleReason();
  if (stale !== undefined) return send({ type: 'stale', id: m.id, reason: stale });
  if (tainted !== undefined) return send({ type: 'fallback', id: m.id, reason: tainted, final: true });
  clearTypedCaches();
  const started = Date.now();
  capture = [];
  escaped = undefined;
  const before = linted;
  linted = new Set();
  /** @type {number | undefined} */
  let exitCode;
  /** @type {string | undefined} */
  let threw;
  try {
    exitCode = await /** @type {NonNullable<typeof cli.execute>} */ (cli.execute)(['node', 'eslint', ...m.args], null, true);
  } catch (e) {
    threw = e instanceof Error ? e.message.split('\n')[0] : String(e);
  }
  // Output written on the next ticks (a stream's callback) and the load hook's last reports.
  await new Promise((r) => setImmediate(r));
  const chunks = capture;
  capture = undefined;
  wrapLintFiles();
  noteModules();
  for (const p of [...written, ...linted]) if (files.has(p)) files.set(p, sig(p));
  for (const p of written) if (dirs.has(path.dirname(p))) dirs.set(path.dirname(p), listing(path.dirname(p)));
  written.clear();
  const why = threw ?? escaped ?? (typeof exitCode !== 'number' ? `cli.execute returned ${String(exitCode)}` : tainted);
  if (why !== undefined) {
    linted = before;
    return send({ type: 'fallback', id: m.id, reason: `ESLint's run in the warm process did not end as the command would: ${why}`, final: tainted !== undefined });
  }
  send({ type: 'result', id: m.id, chunks, exitCode, durationMs: Date.now() - started, linted: linted.size });
}

// One run at a time, in the order asked.
let queue = Promise.resolve();
process.on('message', (/** @type {{ type?: string, id?: number, args?: string[] }} */ m) => {
  if (m.type !== 'run' || typeof m.id !== 'number' || !Array.isArray(m.args)) return;
  const req = { id: m.id, args: m.args };
  queue = queue.then(() => run(req));
});
send({ type: 'ready' });
