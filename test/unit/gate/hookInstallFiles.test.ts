// `hooks install|uninstall` on real files (issue 36): install then uninstall gives back the file's
// bytes for every host and starting shape; our handlers go one by one whatever group they share;
// no write follows a link a repository planted; the user's own link stays a link and is written
// through; a file's mode is kept and a read-only file refused; a user scope with an empty or
// relative home is refused naming the variable.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { HOOK_HOSTS } from '../../../src/core/gate/hookHosts';
import type { HookHost } from '../../../src/core/gate/hookHosts';
import { applyHooksFile, HookConfigError, hookConfigFile, installedEvents, installHooksText, uninstallHooksText } from '../../../src/core/gate/hookInstall';
import { runLockDir } from '../../../src/core/edit/runLock';
import { stateDirectory } from '../../../src/core/home';
import { runCli } from '../../support/cli';
import { tempTree } from '../../support/fixtures';

const opts = { cli: '"/usr/bin/node" "/opt/fug/dist/cli.js"', timeoutSeconds: 120 };

/** Starting shapes of a host's file, given its stop event's name. */
const SHAPES: Record<string, (stop: string) => string | null> = {
  absent: () => null,
  'empty file': () => '',
  'empty object': () => '{}\n',
  'empty object, no newline': () => '{}',
  'empty object over two lines': () => '{\n}\n',
  'one line': () => '{"permissions":{"allow":["Bash(npm test)"]},"theme":"dark"}',
  'one line, our event already used': (stop) => `{"hooks":{"${stop}":[{"hooks":[{"type":"command","command":"./mine.sh"}]}]}}\n`,
  'JSONC: comments and trailing commas': (stop) =>
    `{\n  // the user's\n  "model": "x", // why\n  "hooks": {\n    "${stop}": [\n      { "hooks": [ { "type": "command", "command": "./notify.sh" } ] }, // keep\n    ],\n    /* more */\n  },\n}\n`,
  'an empty hooks object': () => '{\n  "hooks": {}\n}\n',
  'an empty list for our event, CRLF and tabs': (stop) => `{\r\n\t"x": [1, 2],\r\n\t"hooks": {\r\n\t\t"${stop}": []\r\n\t}\r\n}\r\n`,
  'a version already there': () => '{\n  "version": 1,\n  "hooks": {}\n}\n',
};

function readOrNull(file: string): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

describe('hooks install / uninstall on real files', () => {
  for (const host of HOOK_HOSTS) {
    it(`${host}: install then uninstall gives back the bytes, whatever the file looked like`, () => {
      const t = tempTree({ 'package.json': '{}' });
      try {
        const recordDir = path.join(t.dir, 'state', 'hook-installs');
        const stop = installedEvents(host)[0]!.hostEvent;
        for (const [shape, make] of Object.entries(SHAPES)) {
          const root = path.join(t.dir, shape.replace(/\W+/g, '-'));
          mkdirSync(root);
          const file = hookConfigFile(host, 'project', root, '/nowhere');
          const original = make(stop);
          if (original !== null) {
            mkdirSync(path.dirname(file), { recursive: true });
            writeFileSync(file, original);
          }
          assert.equal(applyHooksFile('install', host, 'project', root, '/nowhere', { ...opts, recordDir }).changed, true, `${shape}: installed`);
          const installed = readFileSync(file, 'utf8');
          assert.ok(installedEvents(host).every((e) => installed.includes(`"${e.hostEvent}"`)), `${shape}: every event is in`);
          assert.equal(applyHooksFile('install', host, 'project', root, '/nowhere', { ...opts, recordDir }).changed, false, `${shape}: a second install changes nothing`);
          applyHooksFile('uninstall', host, 'project', root, '/nowhere', { ...opts, recordDir });
          assert.equal(readOrNull(file), original, `${shape}: the bytes as they were`);
          if (original === null) assert.deepEqual(readdirSync(root), [], `${shape}: the folders install made are gone`);
        }
      } finally {
        t.cleanup();
      }
    });
  }

  it('the text alone (no record) still comes back byte for byte where the text tells what install added', () => {
    for (const host of HOOK_HOSTS) {
      const stop = installedEvents(host)[0]!.hostEvent;
      for (const shape of ['one line', 'one line, our event already used', 'JSONC: comments and trailing commas'] as const) {
        const original = SHAPES[shape]!(stop)!;
        const withVersion = host === 'cursor' || host === 'copilot-cli' ? null : original;
        const back = uninstallHooksText(host, '/p/f.json', installHooksText(host, '/p/f.json', original, opts));
        if (withVersion !== null) assert.equal(back, original, `${host} ${shape}`);
        else assert.equal(back?.replace(/,"version":1|,\n\s*"version": 1/, ''), original, `${host} ${shape}: all but the version it needs`);
      }
    }
  });

  it("removes our handlers one by one: a user's handler added to our group stays, none of ours does", () => {
    const t = tempTree({ 'package.json': '{}' });
    try {
      for (const host of ['claude', 'codex', 'gemini'] as HookHost[]) {
        const file = hookConfigFile(host, 'project', t.dir, '/nowhere');
        applyHooksFile('install', host, 'project', t.dir, '/nowhere', opts);
        const pre = installedEvents(host).find((e) => e.event === 'pre-tool')!.hostEvent;
        const j = parse(readFileSync(file, 'utf8')) as { hooks: Record<string, { matcher?: string; hooks: Record<string, unknown>[] }[]> };
        // The user adds their own handler to our PreToolUse group (same matcher group object).
        j.hooks[pre]![0]!.hooks.push({ type: 'command', command: './my-guard.sh' });
        writeFileSync(file, JSON.stringify(j, null, 2) + '\n');
        const r = applyHooksFile('uninstall', host, 'project', t.dir, '/nowhere', opts);
        assert.equal(r.changed, true);
        const text = readFileSync(file, 'utf8');
        assert.doesNotMatch(text, /hook --host/, `${host}: no handler of ours is left`);
        const left = parse(text) as { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };
        assert.deepEqual(Object.keys(left.hooks), [pre]);
        assert.deepEqual(left.hooks[pre]![0]!.hooks.map((h) => h.command), ['./my-guard.sh'], `${host}: the user's handler keeps its group and matcher`);
        assert.ok(left.hooks[pre]![0]!.matcher);
      }
    } finally {
      t.cleanup();
    }
  });

  it('a temporary name a repository planted as a link is never written through', () => {
    const t = tempTree({ 'project/package.json': '{}', 'outside/precious.txt': 'the user\'s own file\n' });
    try {
      const root = path.join(t.dir, 'project');
      const precious = path.join(t.dir, 'outside', 'precious.txt');
      for (const host of HOOK_HOSTS) {
        const file = hookConfigFile(host, 'project', root, '/nowhere');
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, '{"a": 1}\n');
        symlinkSync(precious, `${file}.fix-until-green.tmp`);
        symlinkSync(precious, `${file}.tmp`);
        const recordDir = path.join(t.dir, 'state');
        assert.equal(applyHooksFile('install', host, 'project', root, '/nowhere', { ...opts, recordDir }).changed, true);
        assert.ok(lstatSync(file).isFile(), `${host}: the settings file is a file`);
        assert.match(readFileSync(file, 'utf8'), /hook --host/);
        applyHooksFile('uninstall', host, 'project', root, '/nowhere', { ...opts, recordDir });
        assert.equal(readFileSync(file, 'utf8'), '{"a": 1}\n');
        assert.equal(readFileSync(precious, 'utf8'), "the user's own file\n", `${host}: the file outside is untouched`);
        assert.ok(lstatSync(`${file}.fix-until-green.tmp`).isSymbolicLink(), 'the planted link is left as it was');
      }
    } finally {
      t.cleanup();
    }
  });

  it("writes through the user's own link to its target, and the link stays a link (install and uninstall)", () => {
    const original = '{\n  "env": { "ANTHROPIC_API_KEY": "sk-test" }\n}\n';
    const t = tempTree({ 'project/package.json': '{}', 'home/dotfiles/claude-settings.json': original });
    try {
      const home = path.join(t.dir, 'home');
      const target = path.join(home, 'dotfiles', 'claude-settings.json');
      mkdirSync(path.join(home, '.claude'));
      const link = path.join(home, '.claude', 'settings.json');
      symlinkSync('../dotfiles/claude-settings.json', link);
      const root = path.join(t.dir, 'project');
      const recordDir = path.join(t.dir, 'state');
      applyHooksFile('install', 'claude', 'user', root, home, { ...opts, recordDir });
      assert.ok(lstatSync(link).isSymbolicLink(), 'still a link');
      assert.equal(readlinkSync(link), '../dotfiles/claude-settings.json');
      assert.match(readFileSync(target, 'utf8'), /hook --host claude --event stop/);
      applyHooksFile('uninstall', 'claude', 'user', root, home, { ...opts, recordDir });
      assert.ok(lstatSync(link).isSymbolicLink(), 'still a link after uninstall');
      assert.equal(readFileSync(target, 'utf8'), original, 'the target has its bytes back');

      // A link whose target held only what install wrote: the target keeps `{}`, nothing is deleted through the link.
      writeFileSync(target, '{}\n');
      applyHooksFile('install', 'claude', 'user', root, home, opts);
      applyHooksFile('uninstall', 'claude', 'user', root, home, opts);
      assert.ok(lstatSync(link).isSymbolicLink());
      assert.equal(readFileSync(target, 'utf8'), '{}\n');

      // A project's file leading outside the project (a cloned repository can ship the link) is refused.
      mkdirSync(path.join(root, '.claude'));
      symlinkSync(target, path.join(root, '.claude', 'settings.json'));
      assert.throws(() => applyHooksFile('install', 'claude', 'project', root, home, opts), (e: Error) => e instanceof HookConfigError && /leads outside the project/.test(e.message));
      assert.equal(readFileSync(target, 'utf8'), '{}\n');
      // ...and so is a folder on the way that leads outside.
      symlinkSync(path.join(home, 'dotfiles'), path.join(root, '.gemini'));
      assert.throws(() => applyHooksFile('install', 'gemini', 'project', root, home, opts), /leads outside the project/);
      assert.equal(existsSync(path.join(home, 'dotfiles', 'settings.json')), false);
      // A link to a folder, or to nothing, is refused with a line, and left.
      symlinkSync(path.join(home, 'dotfiles'), path.join(home, '.codex'));
      mkdirSync(path.join(home, 'dotfiles', 'hooks.json'));
      assert.throws(() => applyHooksFile('install', 'codex', 'user', root, home, opts), /not a regular file/);
      mkdirSync(path.join(root, '.cursor'));
      symlinkSync('missing.json', path.join(root, '.cursor', 'hooks.json'));
      assert.throws(() => applyHooksFile('install', 'cursor', 'project', root, home, opts), /a link to nothing/);
      assert.ok(lstatSync(path.join(root, '.cursor', 'hooks.json')).isSymbolicLink());
      symlinkSync(path.join(t.dir, 'not-yet', 'codex'), path.join(root, '.codex'));
      assert.throws(() => applyHooksFile('install', 'codex', 'project', root, home, opts), /\.codex is a link to nothing/);
      assert.equal(existsSync(path.join(t.dir, 'not-yet')), false);
    } finally {
      t.cleanup();
    }
  });

  it('keeps the file mode (0600 stays 0600) and refuses a read-only file, leaving it as it is', () => {
    const t = tempTree({ 'package.json': '{}', '.claude/settings.json': '{\n  "env": { "ANTHROPIC_API_KEY": "sk-test" }\n}\n', '.gemini/settings.json': '{ "theme": "dark" }\n' });
    try {
      const claude = path.join(t.dir, '.claude', 'settings.json');
      chmodSync(claude, 0o600);
      applyHooksFile('install', 'claude', 'project', t.dir, '/nowhere', opts);
      assert.equal(statSync(claude).mode & 0o777, 0o600, 'after install');
      applyHooksFile('uninstall', 'claude', 'project', t.dir, '/nowhere', opts);
      assert.equal(statSync(claude).mode & 0o777, 0o600, 'after uninstall');

      const gemini = path.join(t.dir, '.gemini', 'settings.json');
      chmodSync(gemini, 0o444);
      const ino = statSync(gemini).ino;
      assert.throws(() => applyHooksFile('install', 'gemini', 'project', t.dir, '/nowhere', opts), (e: Error) => e instanceof HookConfigError && /read-only \(mode 0444\)/.test(e.message) && !e.message.includes('\n'));
      assert.equal(readFileSync(gemini, 'utf8'), '{ "theme": "dark" }\n');
      assert.equal(statSync(gemini).ino, ino, 'never replaced');
      assert.equal(statSync(gemini).mode & 0o777, 0o444);
      const r = runCli(['hooks', 'install', '--host', 'gemini', '--cwd', t.dir], { env: { FIX_UNTIL_GREEN_STORAGE: path.join(t.dir, 'state') } });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr.trim(), /settings\.json is read-only \(mode 0444\); it was left as it is/);
      assert.equal(r.stderr.trim().split('\n').length, 1);

      // A file with another name (a hard link the user made) is refused too: replaced, it would part from it.
      chmodSync(gemini, 0o644);
      linkSync(gemini, path.join(t.dir, 'gemini-settings-backup.json'));
      assert.throws(() => applyHooksFile('install', 'gemini', 'project', t.dir, '/nowhere', opts), /has 2 hard links; it was left as it is/);
      assert.equal(readFileSync(path.join(t.dir, 'gemini-settings-backup.json'), 'utf8'), '{ "theme": "dark" }\n');
    } finally {
      t.cleanup();
    }
  });

  it("--scope user with HOME empty or relative (or a host's own home variable relative) exits 2 naming the variable, writing nothing", () => {
    const t = tempTree({ 'package.json': '{}' });
    try {
      const env = { FIX_UNTIL_GREEN_STORAGE: path.join(t.dir, 'state') };
      for (const host of ['claude', 'codex', 'gemini', 'cursor', 'copilot-cli']) {
        for (const home of ['', 'relative/home']) {
          const r = runCli(['hooks', 'install', '--host', host, '--scope', 'user', '--cwd', t.dir], { cwd: t.dir, env: { ...env, HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', GEMINI_CLI_HOME: '', COPILOT_HOME: '' } });
          assert.equal(r.code, 2, `${host} HOME=${JSON.stringify(home)}: ${r.stdout}${r.stderr}`);
          assert.match(r.stderr, /HOME is (empty|"relative\/home", not an absolute path)/);
        }
        const rel = runCli(['hooks', 'install', '--host', host, '--scope', 'user', '--cwd', t.dir, '--home', 'rel'], { cwd: t.dir, env });
        assert.equal(rel.code, 2);
        assert.match(rel.stderr, /--home is "rel", not an absolute path/);
      }
      const codex = runCli(['hooks', 'install', '--host', 'codex', '--scope', 'user', '--cwd', t.dir], { cwd: t.dir, env: { ...env, CODEX_HOME: 'codex-home' } });
      assert.equal(codex.code, 2);
      assert.match(codex.stderr, /CODEX_HOME is "codex-home", not an absolute path/);
      assert.deepEqual(readdirSync(t.dir), ['package.json'], 'nothing written in the folder (nor anywhere else)');
      // The hosts' own variables name where they read: the install writes there.
      const own = path.join(t.dir, 'state', 'codex-home');
      const ok = runCli(['hooks', 'install', '--host', 'codex', '--scope', 'user', '--cwd', t.dir], { cwd: t.dir, env: { ...env, CODEX_HOME: own } });
      assert.equal(ok.code, 0, ok.stderr);
      assert.ok(existsSync(path.join(own, 'hooks.json')));
      assert.equal(hookConfigFile('claude', 'user', '/p', '/h', { CLAUDE_CONFIG_DIR: '/c' }), '/c/settings.json');
      assert.equal(hookConfigFile('gemini', 'user', '/p', '/h', { GEMINI_CLI_HOME: '/g' }), '/g/.gemini/settings.json');
      assert.equal(hookConfigFile('copilot-cli', 'user', '/p', '/h', { COPILOT_HOME: '/k' }), '/k/hooks/fix-until-green.json');
      assert.equal(hookConfigFile('claude', 'project', '/p', '/h', { CLAUDE_CONFIG_DIR: '/c' }), '/p/.claude/settings.json');
      // What we keep in the home ourselves (the run lock, the storage, install records) never lands in the current folder.
      for (const HOME of ['', 'relative/home']) {
        assert.ok(path.isAbsolute(runLockDir({ HOME })), `run lock with HOME=${JSON.stringify(HOME)}`);
        assert.ok(path.isAbsolute(stateDirectory({ HOME })), `storage with HOME=${JSON.stringify(HOME)}`);
      }
    } finally {
      t.cleanup();
    }
  });
});

