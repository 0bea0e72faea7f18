// The argv running exactly some test files with mocha (../stager's targeted runs and confirmations).
// mocha adds its config's `spec` to the files it is given, so a run named by files gets a copy of
// the project's options without one: read once per check by mocha's own option loader, in the
// check's folder, and written to storage (never the user's tree); where they cannot be read, the
// files run with the spec, as named.
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../atomicWrite';
import type { CheckSpec, Logger, ParserId } from '../../types';
import type { Attempt } from './attempt';
import type { TestCommand } from './commands';
import { toolName } from './launchers';

const MARK = '@@fix-until-green-mocha-options@@';

/** What reading the options needs of the verifier: the check's folder, a run of a command there, where storage is. */
export interface MochaExec {
  storageDir?: string;
  logger: Logger;
  cwd(spec: CheckSpec): string;
  run(spec: CheckSpec, parser: ParserId, argv: string[], signal?: AbortSignal): Promise<Attempt>;
}

export class MochaFiles {
  /** Per check and command, the options file (undefined: its options could not be read). */
  private readonly configs = new Map<string, string | undefined>();
  /** Per check and command, the test files mocha lists for it (cwd-relative). */
  private readonly listed = new Map<string, ReadonlySet<string>>();

  constructor(private readonly x: MochaExec) {}

  /** The argv running exactly `files`: the command's own for another runner. */
  async argv(spec: CheckSpec, cmd: TestCommand, files: readonly string[], signal?: AbortSignal): Promise<string[]> {
    if (cmd.runner !== 'mocha') return cmd.files(files);
    const config = await this.config(spec, cmd, signal);
    const bin = cmd.argv.slice(0, cmd.argv.findIndex((a) => toolName(a) === 'mocha') + 1);
    return config ? [...bin, '--config', config, '--no-package', ...files] : cmd.files(files);
  }

  /**
   * The test files (cwd-relative) the command itself runs, as mocha's own file collection lists them
   * from its spec, targets, extensions, `recursive` and `ignore` (config and flags): `mocha test` runs
   * test/*.js, not test/sub/x.test.js nor test/x.test.ts, which a run naming them would run. Listed
   * once per check (a process start, as long as a small suite's run), and again where `files` holds
   * one the list has not (a test file added since). Undefined where mocha's collection cannot be
   * reached (an old mocha): then the targets' paths decide (./commands outsideTargets).
   */
  async runs(spec: CheckSpec, cmd: TestCommand, files: readonly string[], signal?: AbortSignal): Promise<ReadonlySet<string> | undefined> {
    const key = `${spec.name}\0${spec.command}`;
    const known = this.listed.get(key);
    if (known && files.every((f) => known.has(f))) return known;
    const fresh = await this.list(spec, cmd, signal);
    if (fresh) this.listed.set(key, fresh);
    return fresh;
  }

  private async list(spec: CheckSpec, cmd: TestCommand, signal?: AbortSignal): Promise<ReadonlySet<string> | undefined> {
    const cwd = this.x.cwd(spec);
    const args = cmd.argv.slice(cmd.argv.findIndex((a) => toolName(a) === 'mocha') + 1);
    // mocha's own reading: positional targets and the config's spec both in `_` (mocha runs both), `test` by default.
    const script = `const p={paths:[process.cwd()]};const {loadOptions}=require(require.resolve('mocha/lib/cli/options',p));const collect=require(require.resolve('mocha/lib/cli/collect-files',p));const o=loadOptions(${JSON.stringify(args)});const spec=o._.length>0?o._.map(String):['test'];const r=collect({ignore:o.ignore||[],extension:o.extension||[],file:[],recursive:!!o.recursive,sort:false,spec});process.stdout.write('\\n${MARK}'+JSON.stringify(Array.isArray(r)?r:r.files)+'${MARK}\\n')`;
    const a = await this.x.run({ ...spec, parser: 'generic' }, 'generic', ['node', '-e', script], signal);
    const listed = new RegExp(`${MARK}(.*)${MARK}`).exec(a.r.output)?.[1];
    if (a.r.exitCode !== 0 || listed === undefined) {
      this.x.logger.info(`mocha's test files could not be listed (${a.r.output.trim().split('\n').pop() ?? ''}): the command's targets decide what a step may run`);
      return undefined;
    }
    const files = JSON.parse(listed) as unknown;
    if (!Array.isArray(files)) return undefined;
    return new Set(files.map((f) => path.relative(cwd, String(f)).split(path.sep).join('/')));
  }

  private async config(spec: CheckSpec, cmd: TestCommand, signal?: AbortSignal): Promise<string | undefined> {
    const key = `${spec.name}\0${spec.command}`;
    if (this.configs.has(key)) return this.configs.get(key);
    const cwd = this.x.cwd(spec);
    const i = cmd.argv.findIndex((a) => toolName(a) === 'mocha');
    const args = cmd.argv.slice(i + 1).filter((a) => !cmd.targets.includes(a));
    const script = `const {loadOptions}=require(require.resolve('mocha/lib/cli/options',{paths:[process.cwd()]}));const o=loadOptions(${JSON.stringify(args)});delete o._;delete o.spec;delete o.config;delete o.package;process.stdout.write('\\n${MARK}'+JSON.stringify(o)+'${MARK}\\n')`;
    const a = await this.x.run({ ...spec, parser: 'generic' }, 'generic', ['node', '-e', script], signal);
    const options = new RegExp(`${MARK}(.*)${MARK}`).exec(a.r.output)?.[1];
    let file: string | undefined;
    if (a.r.exitCode === 0 && options !== undefined) {
      const dir = path.join(this.x.storageDir ?? path.join(cwd, 'node_modules', '.cache', 'fix-until-green'), 'staged');
      mkdirSync(dir, { recursive: true });
      file = path.join(dir, `mocharc-${spec.name.replace(/[^\w.-]/g, '_')}.json`);
      writeFileAtomic(file, options, { durable: false });
    } else {
      this.x.logger.info(`mocha's options could not be read for a targeted run (${a.r.output.trim().split('\n').pop() ?? ''}): named files run with its spec`);
    }
    this.configs.set(key, file);
    return file;
  }
}
