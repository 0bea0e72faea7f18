// @ts-check
// A pre-started test runner (../preStarted.ts starts it with `node FILE INIT`, INIT the last argument,
// JSON: the runner package's modules to load, what its bin sets in the environment first, and
// `hold`: the command it is for, where it can be held). It loads the project's own runner's heavy
// modules (for Vitest, `vitest/node`: what its CLI imports before it does anything; for Jest, the
// packages its CLI requires lazily on every run) and, where it can hold it (Vitest 3 and 4:
// `holdShape`), runs the command
// itself up to the moment its test run starts (the config loaded, the Vite servers created, the
// plugins set up) and holds there. On `go` it becomes (or goes on as) the command: `process.argv`
// is what the command's node would have (node, the bin entry it ran, the command's arguments) and
// the entry runs as node runs its main module, so from there on it IS the CLI, in a fresh process,
// with the cwd, environment and stdio the command gets; it exits as the CLI exits.
//
// It talks to its parent over fd 3 (one JSON line each way): `ready` with every file it loaded and
// its signature as it loaded, and (held) every path it read, stat'ed or listed while preparing (the
// parent compares them all at `go`: a changed one means the process is not what a fresh one would
// be, and the command runs cold instead), or `fallback` with a reason.
// ES modules are recorded by a `module.register` load hook whose thread reports over a MessageChannel
// (as ./warmEslintWorker.cjs does), CommonJS ones from require.cache. The hook goes passive before
// `go` (held: at the hold): the CLI's own loads after it pass straight through. It exits when its
// parent goes before `go`.
// The module object itself (not a namespace): its functions are wrapped in place.
import fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as util from 'node:util';
import { MessageChannel } from 'node:worker_threads';

/** @type {{ preload: string[], envDefaults?: Record<string, string>, hold?: { bin: string, argv1: string, args: string[] } }} */
const init = JSON.parse(process.argv[process.argv.length - 1] ?? '{}');
const control = new net.Socket({ fd: 3, readable: true, writable: true });
/** @param {object} m */
const send = (m) => control.write(`${JSON.stringify(m)}\n`);
// The parent went (or gave up on us) before `go`: nothing to run.
const leave = () => process.exit(0);
control.on('end', leave);
control.on('error', leave);

// Ours, taken before the observing hooks wrap them: what the runner itself looks at is no observation.
const statSync = fs.statSync;
const readFileSync = fs.readFileSync;

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

/** Registers the load hook and loads the runner's modules; a reason where it could not. */
async function preload() {
  if (typeof nodeModule.register !== 'function') return `Node ${process.version} has no module.register: what the runner loads could not be watched`;
  nodeModule.register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { port: channel.port2 }, transferList: [channel.port2] });
  // What the bin sets before it loads anything where the environment has none (jest's NODE_ENV=test): the modules read it at load.
  for (const [k, v] of Object.entries(init.envDefaults ?? {})) if (process.env[k] === undefined) process.env[k] = v;
  try {
    for (const file of init.preload) await import(pathToFileURL(file).href);
  } catch (e) {
    return `the runner's modules could not be loaded: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
  }
  return undefined;
}

/** The load hook made passive; every file loaded so far (ES modules and CommonJS) with its signature. */
async function loaded() {
  // The hook's reports come in order: once it says it went passive, every load before is in.
  await new Promise((resolve) => {
    passive = () => resolve(undefined);
    channel.port1.postMessage('passive');
  });
  channel.port1.close();
  const cache = nodeModule.createRequire(import.meta.url).cache;
  for (const key of Object.keys(cache)) if (path.isAbsolute(key) && !files.has(key)) files.set(key, sig(key));
  return files;
}

/**
 * @param {string} line
 * @returns {{ type: 'go', bin: string, argv1: string, args: string[] }}
 */
function goMessage(line) {
  /** @type {{ type?: string, bin?: string, argv1?: string, args?: string[] }} */
  const m = JSON.parse(line);
  if (m.type !== 'go' || typeof m.bin !== 'string' || typeof m.argv1 !== 'string' || !Array.isArray(m.args)) {
    // Never a quiet exit 0: that would read as a run that passed.
    process.stderr.write(`fix-until-green pre-started runner: not a go message: ${line.slice(0, 200)}\n`);
    process.exit(70);
  }
  control.removeAllListeners();
  control.destroy();
  return /** @type {{ type: 'go', bin: string, argv1: string, args: string[] }} */ (m);
}

/** Waits for the parent's `go` line. */
function awaitGo() {
  return new Promise((resolve) => {
    let buffered = '';
    control.on('data', (/** @type {Buffer} */ chunk) => {
      buffered += chunk.toString('utf8');
      const nl = buffered.indexOf('\n');
      if (nl >= 0) resolve(goMessage(buffered.slice(0, nl)));
    });
  });
}

/**
 * Starts the bin as the command's node starts it. `process.argv` is set in place: a module loaded
 * already may hold the array itself (Vitest's cac parses the one it took at load). Node's own start
 * of an entry point (a CommonJS bin becomes require.main, an ES one runs as the main module, errors
 * print as node prints them); an import of the bin where Node has none.
 * @param {{ bin: string, argv1: string, args: string[] }} m
 */
function runBin(m) {
  process.argv.splice(0, process.argv.length, process.execPath, m.argv1, ...m.args);
  if (typeof nodeModule.runMain === 'function') nodeModule.runMain(m.argv1);
  else void import(pathToFileURL(m.bin).href);
}

// ---- Held: the command run ahead up to its test run ---------------------------------------------

/**
 * What a held process observed while it prepared: path → [kind, signature] as it was BEFORE the
 * read (a change after that is seen at `go`, one before it is what it read). `f`: the path's stat
 * (as `sig`); `d`: a folder's entries (its inode and mtime, which an entry added or removed moves).
 * @type {Map<string, [string, string]>}
 */
const observed = new Map();
/** Paths the process itself wrote, made or removed while preparing: what they hold derives from what it observed (Vite's bundled config, a temp file it deletes). @type {Set<string>} */
const own = new Set();
let observing = false;

/** @param {string} p */
function listingSig(p) {
  try {
    const s = statSync(p);
    return `${s.ino}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/** @param {unknown} p */
function absolute(p) {
  if (typeof p === 'string') return path.resolve(p);
  if (p instanceof URL) return p.protocol === 'file:' ? fileURLToPath(p) : undefined;
  if (Buffer.isBuffer(p)) return path.resolve(p.toString('utf8'));
  return undefined; // a file descriptor: its open was observed
}

/** @param {unknown} p @param {'f' | 'd'} kind */
function observe(p, kind) {
  if (!observing) return;
  const a = absolute(p);
  if (a === undefined) return;
  const key = `${kind}\0${a}`;
  if (!observed.has(key)) observed.set(key, [kind, kind === 'd' ? listingSig(a) : sig(a)]);
}

/** @param {unknown[]} paths */
function wrote(...paths) {
  if (!observing) return;
  for (const p of paths) {
    const a = absolute(p);
    if (a !== undefined) own.add(a);
  }
}

/** `open`'s flags that write (w, a, +, or numeric write/create bits). @param {unknown} flags */
const writes = (flags) => (typeof flags === 'string' ? /[wa+]/.test(flags) : typeof flags === 'number' ? (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_APPEND)) !== 0 : false);

/**
 * Wraps `fs`, `fs.promises` functions so that while observing, every path read, stat'ed, tested or
 * listed is recorded, and every path written is marked as its own. Installed before the runner's
 * modules load: a module that keeps `fs.statSync` in a variable keeps the wrapped one. Named ES
 * imports of `node:fs` follow through `syncBuiltinESMExports`.
 */
function installObservers() {
  /** @param {any} obj @param {string} name @param {(args: unknown[]) => void} note */
  const wrap = (obj, name, note) => {
    const orig = obj?.[name];
    if (typeof orig !== 'function') return;
    /** @this {unknown} @param {unknown[]} args */
    const wrapped = function (...args) {
      note(args);
      return orig.apply(this, args);
    };
    // `realpath.native`, `exists`' promisify.custom and the like stay as they were.
    for (const k of Reflect.ownKeys(orig)) if (!(k in wrapped) || k === util.promisify.custom) Reflect.set(wrapped, k, Reflect.get(orig, k));
    Object.defineProperty(wrapped, 'name', { value: orig.name });
    obj[name] = wrapped;
  };
  const reads = ['readFile', 'stat', 'lstat', 'access', 'exists', 'realpath', 'statfs', 'readlink'];
  const lists = ['readdir', 'opendir'];
  const changes2 = ['rename', 'copyFile', 'cp', 'symlink', 'link'];
  const changes = ['writeFile', 'appendFile', 'mkdir', 'rm', 'rmdir', 'unlink', 'truncate', 'utimes', 'chmod', 'mkdtemp'];
  for (const [obj, suffix] of /** @type {[any, string][]} */ ([[fs, ''], [fs, 'Sync'], [fs.promises, '']])) {
    for (const n of reads) wrap(obj, n + suffix, (a) => observe(a[0], 'f'));
    for (const n of lists) wrap(obj, n + suffix, (a) => observe(a[0], 'd'));
    for (const n of changes) wrap(obj, n + suffix, (a) => wrote(a[0]));
    for (const n of changes2) wrap(obj, n + suffix, (a) => wrote(a[0], a[1]));
    wrap(obj, `open${suffix}`, (a) => (writes(a[1]) ? wrote(a[0]) : observe(a[0], 'f')));
  }
  wrap(fs.realpathSync, 'native', (a) => observe(a[0], 'f'));
  wrap(fs.realpath, 'native', (a) => observe(a[0], 'f'));
  wrap(fs, 'createReadStream', (a) => observe(a[0], 'f'));
  wrap(fs, 'createWriteStream', (a) => wrote(a[0]));
  nodeModule.syncBuiltinESMExports();
}

/** stdout and stderr while preparing, kept in order and written at `go` (a cold run prints them in their place). @type {[1 | 2, unknown, unknown][]} */
const early = [];
const writeOut = process.stdout.write;
const writeErr = process.stderr.write;
function bufferOutput() {
  for (const [stream, fd] of /** @type {[NodeJS.WriteStream, 1 | 2][]} */ ([[process.stdout, 1], [process.stderr, 2]])) {
    // @ts-expect-error a write that keeps what is written; callbacks are called as a write's are
    stream.write = (chunk, encoding, cb) => {
      early.push([fd, chunk, typeof encoding === 'function' ? undefined : encoding]);
      const done = typeof encoding === 'function' ? encoding : cb;
      if (typeof done === 'function') process.nextTick(done);
      return true;
    };
  }
}
function replayOutput() {
  process.stdout.write = writeOut;
  process.stderr.write = writeErr;
  for (const [fd, chunk, encoding] of early.splice(0)) {
    if (fd === 1) process.stdout.write(/** @type {any} */ (chunk), /** @type {any} */ (encoding));
    else process.stderr.write(/** @type {any} */ (chunk), /** @type {any} */ (encoding));
  }
}

/** The Vitest methods the CLI calls to start its run (`startVitest`): held where first called. */
const RUN_METHODS = ['start', 'init', 'mergeReports', 'experimental_clearCache'];
/** The CLI commands whose action is `startVitest` (the others: `init` writes files, `list` collects). */
const HELD_COMMANDS = ['', 'run', 'related', 'watch', 'dev', 'bench'];
/**
 * How far back of the prepared phase's start a file Vite's esbuild read must date from: a file
 * system's clock lags (the kernel stamps files with a coarse clock, a tick behind), and one with
 * whole-second times (no fraction in the file's own) rounds down by up to two.
 * @param {number} mtimeMs
 */
const clockMargin = (mtimeMs) => (mtimeMs % 1000 === 0 ? 2000 : 50);

/**
 * The Vitest whose run can be held, by its shape (Vitest 3 and 4): the bin imports `dist/cli.js`,
 * which parses the command line with cac's `createCLI`, and `dist/node.js` imports the `Vitest`
 * class from its cli-api chunk. Anything else: a reason, and the process stays import-only.
 * @param {{ bin: string, args: string[] }} hold
 */
async function holdShape(hold) {
  const dist = path.join(path.dirname(hold.bin), 'dist');
  let bin, cli, node;
  try {
    bin = readFileSync(hold.bin, 'utf8');
    cli = readFileSync(path.join(dist, 'cli.js'), 'utf8');
    node = readFileSync(path.join(dist, 'node.js'), 'utf8');
  } catch (e) {
    return `its files could not be read (${e instanceof Error ? e.message : String(e)})`;
  }
  const cac = /^import \{ c as createCLI \} from '(\.\/chunks\/cac\.[\w-]+\.js)';/.exec(cli);
  const api = /^import \{ V as Vitest\b[^}]*\} from '(\.\/chunks\/cli-api\.[\w-]+\.js)';$/m.exec(node);
  if (!/^#!.*\nimport '\.\/dist\/cli\.js'\s*$/.test(bin) || !cac || !/\ncreateCLI\(\)\.parse\(\);\s*$/.test(cli) || !api) return 'its CLI is not of the shape held here (Vitest 3 or 4)';
  const Vitest = (await import(pathToFileURL(path.join(dist, api[1])).href)).V;
  const createCLI = (await import(pathToFileURL(path.join(dist, cac[1])).href)).c;
  if (typeof Vitest !== 'function' || Vitest.name !== 'Vitest' || typeof Vitest.prototype.start !== 'function' || typeof createCLI !== 'function') return 'its Vitest class or CLI parser is not of the shape held here';
  if (hold.args.some((a) => /^(-h|--help|-v|--version)$/.test(a))) return 'the command prints its help or version';
  const parser = createCLI();
  parser.parse(['node', hold.bin, ...hold.args], { run: false });
  const name = parser.matchedCommand?.name;
  if (typeof name !== 'string' || !HELD_COMMANDS.includes(name)) return `\`vitest ${name ?? hold.args[0]}\` does not start a test run`;
  return { Vitest };
}

/** The tsconfig/jsconfig files esbuild may read for a file it bundles: one in each folder up from it. @param {string} file */
function tsconfigsOf(file) {
  const out = [];
  for (let d = path.dirname(file); ; d = path.dirname(d)) {
    out.push(path.join(d, 'tsconfig.json'), path.join(d, 'jsconfig.json'));
    if (d === path.dirname(d)) return out;
  }
}

/**
 * Files read outside `fs` (by esbuild, Vite's config bundler): their signature now, only if each
 * dates from before the prepared phase began (then what was read is what is there now); otherwise
 * the reason the process cannot be used.
 * @param {any} ctx the Vitest instance
 * @param {number} since
 * @returns {{ files: [string, string, string][] } | { reason: string }}
 */
function configFiles(ctx, since) {
  /** @type {Set<string>} */
  const deps = new Set();
  const servers = [];
  try {
    servers.push(ctx.vite);
  } catch {}
  for (const p of Array.isArray(ctx.projects) ? ctx.projects : []) {
    try {
      servers.push(p.vite);
    } catch {}
  }
  for (const s of servers) for (const d of s?.config?.configFileDependencies ?? []) if (typeof d === 'string') deps.add(path.resolve(d));
  /** @type {[string, string, string][]} */
  const files = [];
  for (const f of new Set([...deps, ...[...deps].flatMap(tsconfigsOf)])) {
    let mtime;
    try {
      mtime = statSync(f).mtimeMs;
    } catch {
      files.push([f, 'f', 'missing']);
      continue;
    }
    if (mtime >= since - clockMargin(mtime)) return { reason: `${f}, which its config bundler read, was modified while (or just before) it loaded the config` };
    files.push([f, 'f', sig(f)]);
  }
  return { files };
}

/**
 * Vitest's results cache object where it has the shape read here (Vitest 3 and 4: `readFromCache`,
 * its `cache` and `workspacesKeyMap` maps), else undefined (its file then stays observed, and a
 * change to it sends the run cold).
 * @param {any} ctx
 */
function resultsCache(ctx) {
  const r = ctx?.cache?.results;
  if (typeof r?.readFromCache !== 'function' || typeof r?.getCachePath !== 'function' || !(r.cache instanceof Map) || !(r.workspacesKeyMap instanceof Map)) return undefined;
  return typeof r.getCachePath() === 'string' ? r : undefined;
}

/**
 * The results cache as a fresh process has it: emptied, then read from its file where there is one.
 * @param {any} results
 * @param {any} ctx
 */
async function rereadResults(results, ctx) {
  results.cache = new Map();
  results.workspacesKeyMap = new Map();
  if (typeof ctx.version === 'string') results.version = ctx.version;
  try {
    await results.readFromCache();
  } catch {
    // As Vitest itself: an unreadable cache is no cache.
  }
}

/**
 * Runs the command now and holds it where its test run would start: the first call of a RUN_METHODS
 * method waits there for `go`, after `ready` told the parent what the process observed. Output until
 * then is kept and written at `go`. Past the hold, everything passes through.
 * @param {{ Vitest: any }} shape
 * @param {{ bin: string, argv1: string, args: string[] }} hold
 */
function runHeld(shape, hold) {
  const since = Date.now();
  /** @type {Promise<void> | undefined} */
  let holding;
  const atHold = async (/** @type {any} */ ctx) => {
    observing = false;
    const modules = await loaded();
    const config = configFiles(ctx, since);
    if ('reason' in config) {
      send({ type: 'fallback', reason: config.reason });
      control.end(leave);
      return new Promise(() => undefined); // exits once the reason is sent
    }
    // Loads are reported by real path: its own files under a linked folder (node_modules) by theirs too.
    for (const p of [...own]) {
      try {
        own.add(path.join(fs.realpathSync(path.dirname(p)), path.basename(p)));
      } catch {}
    }
    const isOwn = (/** @type {string} */ p) => own.has(p);
    // A folder the process itself wrote into: its entries as they are now (they moved by its own writes).
    const ownDirs = new Set([...own].map((p) => path.dirname(p)));
    /** @type {[string, string, string][]} */
    const seen = [];
    // Vitest's results cache (the last run's durations and failures, which only order the files) is
    // read again at `go`, as a fresh process reads it at its start: a run in between rewrote it.
    const results = resultsCache(ctx);
    for (const [key, [kind, s]] of observed) {
      const p = key.slice(2);
      if (isOwn(p) || (results !== undefined && p === results.getCachePath())) continue;
      seen.push([p, kind, kind === 'd' && ownDirs.has(p) ? listingSig(p) : s]);
    }
    send({ type: 'ready', held: true, files: [...modules].filter(([p]) => !isOwn(p)), observed: [...seen, ...config.files] });
    const m = await awaitGo();
    if (JSON.stringify([m.argv1, m.args]) !== JSON.stringify([hold.argv1, hold.args])) {
      process.stderr.write(`fix-until-green pre-started runner: held for \`${hold.args.join(' ')}\`, asked to run \`${m.args.join(' ')}\`\n`);
      process.exit(70);
    }
    if (results !== undefined) await rereadResults(results, ctx);
    replayOutput();
    // A reporter's start time, taken when it was made (at the prime): the run's, as a cold run prints it.
    for (const r of Array.isArray(ctx.reporters) ? ctx.reporters : []) {
      if (typeof r?._timeStart === 'string' && /^\d\d:\d\d:\d\d$/.test(r._timeStart)) r._timeStart = new Date().toTimeString().split(' ')[0];
      else if (r?._timeStart instanceof Date) r._timeStart = new Date();
    }
  };
  for (const k of RUN_METHODS) {
    const orig = shape.Vitest.prototype[k];
    if (typeof orig !== 'function') continue;
    shape.Vitest.prototype[k] = async function (/** @type {unknown[]} */ ...a) {
      await (holding ??= atHold(this));
      return orig.apply(this, a);
    };
  }
  bufferOutput();
  observing = true;
  runBin(hold);
}

// ---- Main ---------------------------------------------------------------------------------------

if (init.hold) installObservers();
// While the runner's modules load, what they read is observed too (a held process keeps it all).
observing = init.hold !== undefined;
const why = await preload();
const shape = why === undefined && init.hold ? await holdShape(init.hold) : undefined;
if (why !== undefined) {
  send({ type: 'fallback', reason: why });
  control.end(leave);
} else if (init.hold && shape && typeof shape === 'object') {
  runHeld(shape, init.hold);
} else {
  observing = false;
  const all = await loaded();
  void awaitGo().then(runBin);
  send({ type: 'ready', held: false, files: [...all], ...(typeof shape === 'string' ? { notHeld: shape } : {}) });
}
