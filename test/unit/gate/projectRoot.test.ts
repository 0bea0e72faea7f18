// The gate's folder is the project, not where the agent cd'ed (issue 36): real folders, real files.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { projectRoot } from '../../../src/core/gate/projectRoot';

describe('projectRoot', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-root-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const put = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  const at = (rel: string, o: { env?: Record<string, string>; host?: 'claude' | 'codex' | 'gemini'; home?: string; explicit?: string } = {}): string => {
    mkdirSync(path.join(dir, rel), { recursive: true });
    const r = projectRoot({ host: o.host ?? 'claude', cwd: path.join(dir, rel), processCwd: '/', env: o.env ?? {}, home: o.home ?? path.join(dir, 'home'), ...(o.explicit !== undefined ? { explicit: o.explicit } : {}) });
    return path.relative(dir, r.root) || '.';
  };

  it('a cwd below a package maps up to it; a folder of a workspace maps to the workspace root', () => {
    put('app/package.json', '{}');
    assert.equal(at('app/src/deep'), 'app');
    put('mono/package.json', '{"workspaces":["packages/*"]}');
    put('mono/packages/a/package.json', '{}');
    assert.equal(at('mono/packages/a/src'), 'mono');
    put('pn/pnpm-workspace.yaml', 'packages: ["p/*"]\n');
    put('pn/package.json', '{}');
    put('pn/p/x/package.json', '{}');
    assert.equal(at('pn/p/x'), 'pn');
  });

  it("the host's config file holding our hook marks the project, above a nearer package.json", () => {
    put('proj/.codex/hooks.json', '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"node cli.js hook --host codex --event stop"}]}]}}');
    put('proj/tools/package.json', '{}');
    assert.equal(at('proj/tools/x', { host: 'codex' }), 'proj');
    // Another host's file, or one without our hook, marks nothing.
    put('other/.claude/settings.json', '{"hooks":{}}');
    put('other/sub/package.json', '{}');
    assert.equal(at('other/sub', { host: 'claude' }), 'other/sub');
  });

  it("the host's project-dir variable places the call when the cwd is inside it; a variable elsewhere is ignored", () => {
    put('p/package.json', '{}');
    put('p/inner/package.json', '{}');
    assert.equal(at('p/inner/x', { env: { CLAUDE_PROJECT_DIR: path.join(dir, 'p') } }), 'p');
    assert.equal(at('p/inner/x', { env: { CLAUDE_PROJECT_DIR: path.join(dir, 'q') } }), 'p/inner');
    assert.equal(at('p/inner/x', { host: 'gemini', env: { GEMINI_PROJECT_DIR: path.join(dir, 'p') } }), 'p');
    assert.equal(at('p/inner/x', { env: { CLAUDE_PROJECT_DIR: 'relative/p' } }), 'p/inner', 'a relative value is no project');
  });

  it('--cwd wins; the home folder is never taken for a project; no project anywhere leaves the cwd', () => {
    assert.equal(at('x/y', { explicit: path.join(dir, 'x') }), 'x');
    put('home/.claude/settings.json', '{"hooks":{"Stop":[{"hooks":[{"command":"fug hook --host claude"}]}]}}');
    assert.equal(at('home/code/notes'), 'home/code/notes');
  });
});
