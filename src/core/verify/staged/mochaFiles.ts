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

  constructor(private readonly x: MochaExec) {}

  /** The argv running exactly `files`: the command's own for another runner. */
  async argv(spec: CheckSpec, cmd: TestCommand, files: readonly string[], signal?: AbortSignal): Promise<string[]> {
    if (cmd.runner !== 'mocha') return cmd.files(files);
    const config = await this.config(spec, cmd, signal);
    const bin = cmd.argv.slice(0, cmd.argv.findIndex((a) => toolName(a) === 'mocha') + 1);
    return config ? [...bin, '--config', config, '--no-package', ...files] : cmd.files(files);
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
