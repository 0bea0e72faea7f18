// Secrets beyond provider keys (issue 29): a check that prints GITHUB_TOKEN, NPM_TOKEN and
// AWS_SECRET_ACCESS_KEY from its environment, and fails at a line of `.env`, leaves none of those
// values in the report the model gets, the `--json` output or the trace. A real CLI process, real
// checks, real files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { isSecretEnvName } from '../../../src/core/secrets';
import { CLI, ensureBuilt } from '../../support/cli';
import { tempTree } from '../../support/fixtures';

const SECRETS = { GITHUB_TOKEN: 'ghp_0123456789abcdefGHIJ', NPM_TOKEN: 'npm_abcdefghijklmnop0123', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz', DB_PASSWORD: 'correct-horse-battery' };
const IN_DOTENV = 'hunter2-only-in-the-dotenv-file';

describe('secret masking (CLI, real processes)', function () {
  this.timeout(120_000);
  before(() => ensureBuilt());

  it('names that mark secrets, as CI systems read them', () => {
    for (const n of ['GITHUB_TOKEN', 'NPM_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'STRIPE_API_KEY', 'SLACK_WEBHOOK_SECRET', 'MY_PRIVATE_KEY_PEM', 'GOOGLE_APPLICATION_CREDENTIALS', 'OPENAI_API_KEY']) assert.ok(isSecretEnvName(n), n);
    for (const n of ['PATH', 'HOME', 'KEYBOARD_LAYOUT', 'TOKENIZERS_PARALLELISM', 'SSH_AUTH_SOCK', 'NODE_ENV', 'PASSAGE']) assert.ok(!isSecretEnvName(n), n);
  });

  it('a check printing secrets from its environment and failing in .env: no value in the prompt, --json or trace', () => {
    const t = tempTree(
      {
        'project/.env': `API_URL=https://example.test\nSESSION=${IN_DOTENV}\n`,
        'project/src/a.js': 'module.exports = 1;\n',
        'project/check.cjs': [
          "for (const k of ['GITHUB_TOKEN', 'NPM_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD']) console.log(`debug ${k}=${process.env[k]}`);",
          "console.log(`.env(2,1): error TS1005: bad value ${process.env.GITHUB_TOKEN}`);",
          'process.exit(2);',
        ].join('\n'),
        'project/.vscode/settings.json': JSON.stringify({ 'fixUntilGreen.checks': [{ name: 'types', command: 'node check.cjs', parser: 'tsc' }] }),
      },
      'fug-secrets-',
    );
    try {
      const replay = path.join(t.dir, 'replay.json');
      writeFileSync(replay, JSON.stringify({ responses: [{ text: 'STATUS: in_progress\nCONFIDENCE: 0.5\nPOSTMORTEM: x\n\nnone\n', usage: { input: 1, output: 1 } }] }));
      mkdirSync(path.join(t.dir, 'storage'));
      const r = spawnSync(process.execPath, [CLI, 'run', '--cwd', path.join(t.dir, 'project'), '--model', `replay:${replay}`, '--max-steps', '1', '--storage', path.join(t.dir, 'storage'), '--json'], {
        encoding: 'utf8',
        env: { ...process.env, ...SECRETS },
        timeout: 100_000,
      });
      assert.equal(r.status, 1, r.stderr);
      const out = JSON.parse(r.stdout) as { tracePath: string; remainingFailures: { file?: string }[] };
      assert.ok(out.remainingFailures.some((f) => f.file === '.env'), 'the failure is located in .env');
      const trace = readFileSync(out.tracePath, 'utf8');
      assert.match(trace, /"type":"model-call"/);
      assert.match(trace, /\[redacted\]/, 'the values are masked, not dropped with their lines');
      const runs = path.join(t.dir, 'storage', 'runs');
      const kept = readdirSync(runs, { recursive: true }).filter((f) => typeof f === 'string' && f.endsWith('.jsonl')).map((f) => readFileSync(path.join(runs, f as string), 'utf8')).join('\n');
      for (const [name, v] of Object.entries(SECRETS)) {
        assert.ok(!r.stdout.includes(v), `${name} not in --json`);
        assert.ok(!r.stderr.includes(v), `${name} not on stderr`);
        assert.ok(!kept.includes(v), `${name} not in the trace (nor the prompt it records)`);
      }
      assert.ok(!kept.includes(IN_DOTENV) && !r.stdout.includes(IN_DOTENV), 'no line of .env is quoted');
    } finally {
      t.cleanup();
    }
  });
});
