// @ts-check
'use strict';
// The warm type checker's child process (../warmTsc.ts starts it with `node FILE INIT`, INIT the
// last argument: the workspace's typescript and the command's arguments, as JSON). It loads the
// checked project's own `typescript` (never ours), keeps a semantic-diagnostics builder program
// between checks and, on each `check`, re-reads the program's files: a file whose text changed is
// parsed again, and only what it affects is checked again. The diagnostics it prints are the ones
// `tsc` prints for the same command line (plain `--pretty false` format), so the tsc parser reads
// them and the failure identity is the command's. Checking `settle` also computes every file's
// signature, after the check's result is sent (the caller has its answer; the settling overlaps what
// it does next). It exits when its parent goes (IPC disconnect).
//
// A check `as` another tsc call (Vitest's typecheck, ../vitestTypecheck.ts: its cwd and arguments)
// is answered only where that call builds this very program: the same config file, found as tsc
// finds it from that cwd, the same root files, the same compiler options once the flags that change
// no diagnostic are set aside (`--noEmit`, which the program has already; `--pretty`, which only
// formats; `--incremental` and `--tsBuildInfoFile`, which only keep state between runs); its
// diagnostics are then printed relative to that cwd, as that tsc prints them. Anything else is a
// `mismatch`, with why, and that call runs tsc itself.
//
// Typed against this repository's typescript; the workspace's may be older or newer, so what is
// not public API (the builder's state, a source file's version) is looked for before it is used.
const path = require('node:path');
const crypto = require('node:crypto');

/**
 * @typedef {import('typescript').SourceFile & { version: string }} VersionedSourceFile
 * @typedef {import('typescript').SourceFile & { resolvedPath: string }} ResolvedSourceFile
 * @typedef {{ fileInfos?: Map<string, { signature?: string }>, oldSignatures?: Map<string, unknown>, useFileVersionAsSignature?: boolean }} BuilderInternals
 * @typedef {{ computeDtsSignature?: (program: import('typescript').Program, sf: import('typescript').SourceFile, cancellationToken: undefined, host: import('typescript').CompilerHost | undefined, onNewSignature: (signature: string) => void) => void }} BuilderStateApi
 * @typedef {{ cwd: string, args: string[] }} AskedAs
 * @typedef {{ type?: string, id?: unknown, settle?: boolean, as?: AskedAs }} CheckRequest
 */

/** @type {{ typescript: string, args: string[] }} */
const init = JSON.parse(process.argv[process.argv.length - 1]);
/** @param {object} m */
const send = (m) => { if (process.connected && process.send) process.send(m); };
process.on('disconnect', () => process.exit(0));
/** @type {typeof import('typescript')} */
let ts;
try {
  ts = require(init.typescript);
} catch (e) {
  send({ type: 'fallback', reason: 'the workspace typescript could not be loaded: ' + /** @type {Error} */ (e).message });
  process.exit(0);
}
const parsed = ts.parseCommandLine(init.args);
if (parsed.errors.length > 0) {
  send({ type: 'fallback', reason: 'the command line has options the warm checker does not take: ' + parsed.errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')).join('; ') });
  process.exit(0);
}
const cwd = process.cwd();
/**
 * The config file tsc reads for a command line run from `dir` (executeCommandLine's own lookup).
 * @param {import('typescript').ParsedCommandLine} cl
 * @param {string} dir
 */
function configPath(cl, dir) {
  const p = cl.options.project;
  if (p !== undefined) {
    const abs = path.resolve(dir, p);
    return ts.sys.directoryExists(abs) ? path.join(abs, 'tsconfig.json') : abs;
  }
  if (cl.fileNames.length > 0) return undefined;
  return ts.findConfigFile(dir, ts.sys.fileExists);
}
const config = configPath(parsed, cwd);
if (config === undefined && parsed.fileNames.length === 0) {
  // tsc itself prints its help and fails here: no program to keep warm, and nothing it would pass.
  send({ type: 'fallback', reason: 'no tsconfig.json found and no files named: tsc would print its help' });
  process.exit(0);
}
/**
 * How tsc run from `dir` prints paths: relative to it.
 * @param {string} dir
 * @returns {import('typescript').FormatDiagnosticsHost}
 */
const formatHostAt = (dir) => ({ getCurrentDirectory: () => dir, getCanonicalFileName: (f) => (ts.sys.useCaseSensitiveFileNames ? f : f.toLowerCase()), getNewLine: () => '\n' });
const formatHost = formatHostAt(cwd);

/**
 * The command line as tsc reads it: `file` (the config file) parsed with `cl`'s options over it.
 * @param {string | undefined} file
 * @param {import('typescript').ParsedCommandLine} cl
 * @returns {import('typescript').ParsedCommandLine}
 */
function readConfigOf(file, cl) {
  if (file === undefined) return { fileNames: cl.fileNames, options: cl.options, errors: [] };
  /** @type {import('typescript').Diagnostic[]} */
  const unrecoverable = [];
  /** @type {import('typescript').ParseConfigFileHost} */
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => unrecoverable.push(d) };
  const r = ts.getParsedCommandLineOfConfigFile(file, cl.options, host);
  return r ?? { fileNames: [], options: cl.options, errors: unrecoverable };
}
const readConfig = () => readConfigOf(config, parsed);

// A file outside node_modules is read again on every check: its text decides whether it changed.
// Dependencies and the default libraries are taken as fixed for the run.
/** @type {Map<string, { key: string, text: string, sf: VersionedSourceFile }>} */
const cache = new Map();
/** @param {string} f */
const fixed = (f) => f.includes('/node_modules/') || f.startsWith(path.dirname(ts.getDefaultLibFilePath(parsed.options)));
let version = 0;
/** @param {import('typescript').CompilerOptions} options */
function host(options) {
  const h = ts.createCompilerHost(options);
  h.getSourceFile = (fileName, language, onError) => {
    const key = JSON.stringify(typeof language === 'object' ? language : { languageVersion: language });
    const c = cache.get(fileName);
    if (c && c.key === key && fixed(fileName)) return c.sf;
    const text = ts.sys.readFile(fileName);
    if (text === undefined) {
      cache.delete(fileName);
      if (onError) onError('File not found: ' + fileName);
      return undefined;
    }
    if (c && c.key === key && c.text === text) return c.sf;
    const sf = /** @type {VersionedSourceFile} */ (ts.createSourceFile(fileName, text, language, false));
    sf.version = String(++version) + ':' + crypto.createHash('sha1').update(text).digest('hex');
    cache.set(fileName, { key, text, sf });
    return sf;
  };
  return h;
}

/** @type {import('typescript').SemanticDiagnosticsBuilderProgram | undefined} */
let builder;
/** @type {import('typescript').CompilerHost | undefined} */
let lastHost;
/** @param {string} [printFrom] where the paths are printed relative to (the asking call's cwd) */
function check(printFrom = cwd) {
  const started = Date.now();
  const cl = readConfig();
  if (cl.projectReferences && cl.projectReferences.length > 0) return { type: 'fallback', reason: 'the project has references (tsc -b territory)' };
  if (cl.options.noEmit !== true) return { type: 'fallback', reason: 'the command emits files (no noEmit)' };
  if (cl.options.watch || cl.options.build) return { type: 'fallback', reason: 'watch or build mode' };
  const options = { ...cl.options };
  delete options.incremental;
  delete options.tsBuildInfoFile;
  lastHost = host(options);
  builder = ts.createSemanticDiagnosticsBuilderProgram(cl.fileNames, options, lastHost, builder, ts.getConfigFileParsingDiagnostics(cl), cl.projectReferences);
  // What tsc reports, in the order it reports it (executeCommandLine's emitFilesAndReportErrors).
  /** @type {import('typescript').Diagnostic[]} */
  const all = builder.getConfigFileParsingDiagnostics().slice();
  const configCount = all.length;
  all.push(...builder.getSyntacticDiagnostics());
  if (all.length === configCount) {
    all.push(...builder.getOptionsDiagnostics());
    all.push(...builder.getGlobalDiagnostics());
    if (all.length === configCount) all.push(...builder.getSemanticDiagnostics());
    if (options.noEmit && (options.declaration || options.composite) && all.length === configCount) all.push(...builder.getProgram().getDeclarationDiagnostics());
  }
  const diagnostics = ts.sortAndDeduplicateDiagnostics(all);
  // tsc's exit status under noEmit when it reported anything: 2 (DiagnosticsPresent_OutputsGenerated).
  return { type: 'result', output: ts.formatDiagnostics(diagnostics, printFrom === cwd ? formatHost : formatHostAt(printFrom)), exitCode: diagnostics.length > 0 ? 2 : 0, durationMs: Date.now() - started, files: builder.getProgram().getSourceFiles().length };
}

/** Options that change no diagnostic of the program (see the header); `configFile` and `project` name the config, compared apart. */
const NOT_COMPARED = new Set(['noEmit', 'pretty', 'incremental', 'tsBuildInfoFile', 'configFile', 'project']);
/** @param {unknown} v @returns {string} */
function canonical(v) {
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (v instanceof Map) return canonical(Object.fromEntries(v));
  if (v && typeof v === 'object') return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonical(/** @type {Record<string, unknown>} */ (v)[k])).join(',') + '}';
  return JSON.stringify(v) ?? 'undefined';
}
/** @param {import('typescript').CompilerOptions} o */
const comparable = (o) => canonical(Object.fromEntries(Object.entries(o).filter(([k]) => !NOT_COMPARED.has(k))));
/** @param {readonly import('typescript').Diagnostic[]} ds */
const texts = (ds) => ds.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n');

/**
 * Why the tsc call `as` would not build this program (undefined: it builds exactly this one).
 * @param {AskedAs} as
 * @returns {string | undefined}
 */
function mismatch(as) {
  // Before 4.0, tsc rejects --incremental beside --noEmit: that call would print an error of its own.
  if (Number(ts.versionMajorMinor.split('.')[0]) < 4) return `typescript ${ts.version} rejects --incremental with --noEmit`;
  const theirs = ts.parseCommandLine(as.args);
  if (theirs.errors.length > 0) return 'its arguments are not all tsc options: ' + texts(theirs.errors);
  if (theirs.fileNames.length > 0) return 'it names files';
  if (theirs.options.noEmit !== true || theirs.options.watch || theirs.options.build) return 'it is no --noEmit run, or a watch';
  const file = configPath(theirs, as.cwd);
  if (file === undefined || config === undefined || path.resolve(file) !== path.resolve(config)) return `it reads ${file ?? 'no config file'}, the warm program ${config ?? 'none'}`;
  const ours = readConfig();
  const other = readConfigOf(file, theirs);
  if (texts(ours.errors) !== texts(other.errors)) return 'its config reads with other errors';
  if (canonical(ours.fileNames) !== canonical(other.fileNames)) return 'its root files differ';
  if ((other.projectReferences ?? []).length > 0) return 'the project has references';
  if (comparable(ours.options) !== comparable(other.options)) return 'its compiler options differ';
  return undefined;
}

// The builder knows a file's declaration signature only once it has computed it; after the first
// build it has none (it took each file's version for it), so the first edit would take every
// dependent of the edited file for changed and check them all again. Settling computes every
// signature up front, while the model thinks, so the steps' checks are small. The builder's own
// signature function on the program just checked costs a declaration emit per file (its types are
// already checked); where this typescript has no such function, every file is taken as changed
// once and checked again (a second whole check).
let settled = false;
function signaturesInPlace() {
  const state = builder && /** @type {{ state?: BuilderInternals }} */ (/** @type {unknown} */ (builder)).state;
  const B = /** @type {{ BuilderState?: BuilderStateApi }} */ (/** @type {unknown} */ (ts)).BuilderState;
  if (!builder || !state || !(state.fileInfos instanceof Map) || !B || typeof B.computeDtsSignature !== 'function') return false;
  const program = builder.getProgram();
  for (const sf of /** @type {readonly ResolvedSourceFile[]} */ (program.getSourceFiles())) {
    if (sf.isDeclarationFile || fixed(sf.fileName)) continue;
    const info = state.fileInfos.get(sf.resolvedPath);
    if (!info) continue;
    B.computeDtsSignature(program, sf, undefined, lastHost, (signature) => { info.signature = signature; });
    if (state.oldSignatures) state.oldSignatures.delete(sf.resolvedPath);
  }
  state.useFileVersionAsSignature = false;
  return true;
}
function settle() {
  const started = Date.now();
  let how = 'signatures';
  if (!signaturesInPlace()) {
    how = 'recheck';
    for (const c of cache.values()) if (!fixed(c.sf.fileName)) c.sf.version = String(++version) + ':' + c.sf.version.split(':')[1];
    check();
  }
  settled = true;
  return { how, durationMs: Date.now() - started };
}

process.on('message', (message) => {
  const m = /** @type {CheckRequest | null | undefined} */ (message);
  if (!m || m.type !== 'check') return;
  try {
    const why = m.as ? mismatch(m.as) : undefined;
    if (why !== undefined) {
      send({ type: 'mismatch', id: m.id, reason: why });
      return;
    }
    // Under --incremental tsc exits 2 with diagnostics where it wrote its build info (a program that
    // changed since), 1 where that was current: Vitest reads only whether it is 0. 2 is this answer's.
    const r = check(m.as ? path.resolve(m.as.cwd) : cwd);
    send({ ...r, id: m.id });
    if (m.settle && !settled && r.type === 'result') {
      try {
        send({ type: 'settled', id: m.id, ...settle() });
      } catch (e) {
        // A half-settled builder is no base for the next check: that one builds afresh.
        builder = undefined;
        settled = true;
        const err = /** @type {Error | undefined} */ (e);
        send({ type: 'settled', id: m.id, how: 'failed: ' + (err && err.message ? err.message : String(e)), durationMs: 0 });
      }
    }
  } catch (e) {
    const err = /** @type {Error | undefined} */ (e);
    send({ type: 'fallback', id: m.id, reason: 'the warm checker failed: ' + (err && err.stack ? err.stack : String(e)) });
  }
});
send({ type: 'ready', version: ts.version });
