// Whether a past commit can run with the user's node_modules: judged by what is installed, not by the
// package.json text (a project's history bumps ranges that the installed versions still satisfy;
// klona's whole history was dropped as install-needed by an exact comparison of the two texts).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installProblem } from '../../../src/core/bench/taskCopy';

describe('bench: a commit needs an install only when the installed packages do not serve it', () => {
  let root: string;
  const pkg = (o: Record<string, unknown>): Buffer => Buffer.from(JSON.stringify(o));
  const installed = (name: string, version: string): void => {
    mkdirSync(path.join(root, 'node_modules', name), { recursive: true });
    writeFileSync(path.join(root, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }));
  };

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fug-install-'));
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'p', devDependencies: { uvu: '^0.5.6', esm: '^3.2.25', tool: 'github:o/tool#v2' } }));
    installed('uvu', '0.5.6');
    installed('esm', '3.2.25');
    installed('tool', '2.0.0');
    installed('@scope/lib', '1.4.0');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('an older range the installed version satisfies needs no install', () => {
    assert.equal(installProblem(root, pkg({ devDependencies: { uvu: '^0.5.1', esm: '^3.2.0' } })), undefined);
    assert.equal(installProblem(root, pkg({ dependencies: { '@scope/lib': '>=1.2 <2' } })), undefined);
  });

  it('a range the installed version does not satisfy, or a package not installed, does; each named', () => {
    assert.equal(installProblem(root, pkg({ devDependencies: { uvu: '^0.3.0' } })), 'install needed: package.json at this commit asks for uvu@^0.3.0, and 0.5.6 is installed');
    assert.equal(installProblem(root, pkg({ devDependencies: { bundt: '^1.0.0' } })), 'install needed: package.json at this commit asks for bundt@^1.0.0, which is not installed');
  });

  it('a missing optional dependency is allowed; folders of the project and npm aliases are judged as npm installs them', () => {
    assert.equal(installProblem(root, pkg({ optionalDependencies: { fsevents: '^2.3.0' } })), undefined);
    assert.equal(installProblem(root, pkg({ dependencies: { core: 'workspace:*', local: 'file:../local' } })), undefined);
    assert.equal(installProblem(root, pkg({ dependencies: { '@scope/lib': 'npm:@scope/lib-fork@^1.1.0' } })), undefined);
    assert.match(installProblem(root, pkg({ dependencies: { '@scope/lib': 'npm:@scope/lib-fork@^2.0.0' } })) ?? '', /asks for @scope\/lib@npm:@scope\/lib-fork@\^2\.0\.0, and 1\.4\.0 is installed/);
  });

  it('a spec that is no range (git, URL) must be the one the user has; no dependencies, no install; an unreadable file is said', () => {
    assert.equal(installProblem(root, pkg({ devDependencies: { tool: 'github:o/tool#v2' } })), undefined);
    assert.match(installProblem(root, pkg({ devDependencies: { tool: 'github:o/tool#v1' } })) ?? '', /asks for tool@github:o\/tool#v1, which is not a version range \(installed: github:o\/tool#v2\)/);
    assert.equal(installProblem(root, pkg({ name: 'p' })), undefined);
    assert.equal(installProblem(root, Buffer.from('{ nope')), 'install needed: package.json at this commit does not parse');
    rmSync(path.join(root, 'node_modules'), { recursive: true });
    assert.equal(installProblem(root, pkg({ devDependencies: { uvu: '^0.5.1' } })), 'install needed: the project has dependencies and no node_modules to link');
  });
});
