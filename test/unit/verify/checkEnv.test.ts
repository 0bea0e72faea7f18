// A check sees the environment the project's own CI would give it: our colour settings, our host's
// variables and npm's account of how we were launched never change what a project's tests compute.
import assert from 'node:assert/strict';
import { checkEnv, runCommand } from '../../../src/core/verify/runner';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';

/** Runs `work` with these variables in our own environment (as a host or a launching npm would set them). */
async function withOwnEnv<T>(vars: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const before = new Map(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await work();
  } finally {
    for (const [k, v] of before) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const HOST = { NO_COLOR: '1', FORCE_COLOR: '0', ELECTRON_RUN_AS_NODE: '1', npm_lifecycle_event: 'fug-hook', npm_lifecycle_script: 'fix-until-green hook', npm_command: 'exec', npm_package_name: 'fix-until-green' };

describe('check environment: what the project CI would give', function () {
  this.timeout(120000);

  it('a Vitest project whose snapshots record picocolors colour codes passes, as in its CI', async () => {
    const s = copyFixture('verify/vitest-colour-snapshot');
    try {
      // Our own process carrying NO_COLOR (a user's shell, a host) must not reach the check either.
      const r = await withOwnEnv({ NO_COLOR: '1', FORCE_COLOR: '0' }, () => new Verifier({ root: s.project, checks: [{ name: 'test', command: 'npm test' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify());
      assert.deepEqual(
        r.failures.map((f) => f.id),
        [],
      );
      assert.equal(r.green, true, r.checks[0]!.output);
      // The runner coloured its own output (CI, no NO_COLOR); none of it reaches what we keep.
      assert.doesNotMatch(r.checks[0]!.output, /\u001b\[/);
      assert.match(r.checks[0]!.output, /Tests {2}2 passed/);
    } finally {
      s.cleanup();
    }
  });

  it('sets CI=true and PATH, and passes on none of our colour, host or launch variables; the user’s own stay', async () => {
    const shown = await withOwnEnv({ ...HOST, TZ: 'Pacific/Auckland', npm_config_registry: 'https://registry.example/', TERM: 'xterm-256color' }, () =>
      runCommand({ command: 'node -e "process.stdout.write(JSON.stringify(process.env))"', cwd: process.cwd(), timeoutMs: 20000, outputLimitBytes: 1 << 20, env: checkEnv(process.cwd()) }),
    );
    const env = JSON.parse(shown.output) as Record<string, string>;
    assert.equal(env.CI, 'true');
    for (const k of Object.keys(HOST)) assert.equal(env[k], undefined, k);
    assert.equal(env.TZ, 'Pacific/Auckland');
    assert.equal(env.npm_config_registry, 'https://registry.example/');
    assert.equal(env.TERM, 'xterm-256color');
    assert.ok(env.PATH!.split(':')[0]!.endsWith('node_modules/.bin'));
  });

  it('a caller may still set or remove a variable for its checks', () => {
    const env = checkEnv(process.cwd(), { FORCE_COLOR: '1', CI: undefined });
    assert.equal(env.FORCE_COLOR, '1');
    assert.equal(env.CI, undefined);
  });
});
