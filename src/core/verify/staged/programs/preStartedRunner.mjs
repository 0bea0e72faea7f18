// @ts-check
// A pre-started test runner (../preStarted.ts starts it with `node FILE INIT`, INIT the last argument,
// JSON: the runner package's modules to load). It loads the project's own runner's heavy modules
// (for Vitest, `vitest/node`: what its CLI imports before it does anything) and waits. On `go` it
// becomes the command: `process.argv` is set to what the command's node would have (node, the bin
// entry it ran, the command's arguments) and the entry is run as node runs its main module, so
// from there on it IS the CLI, in a fresh process, with the cwd, environment and stdio the command
// gets; it exits as the CLI exits.
//
// It talks to its parent over fd 3 (one JSON line each way): `ready` with every file it loaded and
// its signature as it loaded (the parent compares them at `go`: a changed file means the process is
// not what a fresh one would be, and the command runs cold instead), or `fallback` with a reason.
// ES modules are recorded by a `module.register` load hook whose thread reports over a MessageChannel
// (as ./warmEslintWorker.cjs does), CommonJS ones from require.cache. The hook goes passive before
// `go`: the CLI's own loads pass straight through. It exits when its parent goes before `go`.
import { statSync } from 'node:fs';
import * as nodeModule from 'node:module';
import * as net from 'node:net';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

/** @type {{ preload: string[] }} */
const init = JSON.parse(process.argv[process.argv.length - 1] ?? '{}');
const control = new net.Socket({ fd: 3, readable: true, writable: true });
/** @param {object} m */
const send = (m) => control.write(`${JSON.stringify(m)}\n`);
// The parent went (or gave up on us) before `go`: nothing to run.
const leave = () => process.exit(0);
control.on('end', leave);
control.on('error', leave);

/** @param {string} p */
function sig(p) {
  try {
    const s = statSync(p);
    return s.isDirectory() ? `d:${s.ino}` : `f:${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return 'missing';
  }
}

/** @type {Map<string, string>} */
const files = new Map();
const channel = new MessageChannel();
/** @type {(() => void) | undefined} */
let passive;
channel.port1.on('message', (/** @type {{ path?: string, sig?: string, passive?: boolean }} */ m) => {
  if (m.passive) return passive?.();
  if (m.path !== undefined && !files.has(m.path)) files.set(m.path, m.sig ?? 'missing');
});
const HOOKS = `
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
let port;
let on = true;
export function initialize(data) {
  port = data.port;
  port.on('message', () => { on = false; port.postMessage({ passive: true }); port.close(); });
}
export async function load(url, context, next) {
  if (on && url.startsWith('file:')) {
    const p = fileURLToPath(url.replace(/[?#].*$/, ''));
    let sig = 'missing';
    try { const s = statSync(p); sig = s.isDirectory() ? 'd:' + s.ino : 'f:' + s.mtimeMs + ':' + s.size + ':' + s.ino; } catch {}
    port.postMessage({ path: p, sig });
  }
  return next(url, context);
}`;

async function preload() {
  if (typeof nodeModule.register !== 'function') return `Node ${process.version} has no module.register: what the runner loads could not be watched`;
  nodeModule.register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { port: channel.port2 }, transferList: [channel.port2] });
  try {
    for (const file of init.preload) await import(pathToFileURL(file).href);
  } catch (e) {
    return `the runner's modules could not be loaded: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
  }
  // The hook's reports come in order: once it says it went passive, every load before is in.
  await new Promise((resolve) => {
    passive = () => resolve(undefined);
    channel.port1.postMessage('passive');
  });
  channel.port1.close();
  const cache = nodeModule.createRequire(import.meta.url).cache;
  for (const key of Object.keys(cache)) if (path.isAbsolute(key) && !files.has(key)) files.set(key, sig(key));
  return undefined;
}

/** @param {string} line */
function onGo(line) {
  /** @type {{ type?: string, bin?: string, argv1?: string, args?: string[] }} */
  const m = JSON.parse(line);
  if (m.type !== 'go' || typeof m.bin !== 'string' || typeof m.argv1 !== 'string' || !Array.isArray(m.args)) {
    // Never a quiet exit 0: that would read as a run that passed.
    process.stderr.write(`fix-until-green pre-started runner: not a go message: ${line.slice(0, 200)}\n`);
    process.exit(70);
  }
  control.removeAllListeners();
  control.destroy();
  // As the command's node has it (argv[1] the path it was started by, a .bin link); in place: a
  // module loaded already may hold the array itself (Vitest's cac parses the one it took at load).
  process.argv.splice(0, process.argv.length, process.execPath, m.argv1, ...m.args);
  // Node's own start of an entry point (a CommonJS bin becomes require.main, an ES one runs as the
  // main module, errors print as node prints them); an import of the bin where Node has none.
  if (typeof nodeModule.runMain === 'function') nodeModule.runMain(m.argv1);
  else void import(pathToFileURL(m.bin).href);
}

const why = await preload();
if (why !== undefined) {
  send({ type: 'fallback', reason: why });
  control.end(leave);
} else {
  let buffered = '';
  control.on('data', (/** @type {Buffer} */ chunk) => {
    buffered += chunk.toString('utf8');
    const nl = buffered.indexOf('\n');
    if (nl >= 0) onGo(buffered.slice(0, nl));
  });
  send({ type: 'ready', files: [...files] });
}
