// protectedPaths as users write them, .gitignore style: `/x` rooted at the folder, a folder covering what is below it.
import assert from 'node:assert/strict';
import { protectedPathsCritic } from '../../../src/core/policy/critics';
import type { CriticState } from '../../../src/core/policy/critics';
import { defaultSettings } from '../../../src/core/settings';

const none = { step: 0, green: false, failures: [] };
const state: CriticState = { step: 1, settings: defaultSettings(), initial: none, best: none, previous: none };

function verdict(globs: string[], path: string): string {
  const r = protectedPathsCritic(globs).reviewProposal!({ step: 1, reply: '', files: [{ path, kind: 'modify', before: 'a', after: 'b' }] }, state);
  return (r as { verdict: string }).verdict;
}

describe('protectedPaths globs', () => {
  it('a leading / roots the entry at the folder (it matched nothing before)', () => {
    assert.equal(verdict(['/package.json'], 'package.json'), 'retry');
    assert.equal(verdict(['/src/generated/**'], 'src/generated/api.ts'), 'retry');
    assert.equal(verdict(['/*.config.js'], 'jest.config.js'), 'retry');
    assert.equal(verdict(['./tsconfig.json'], 'tsconfig.json'), 'retry');
  });

  it('a rooted entry matches only at the root', () => {
    assert.equal(verdict(['/package.json'], 'packages/a/package.json'), 'continue');
    assert.equal(verdict(['/*.config.js'], 'src/jest.config.js'), 'continue');
    assert.equal(verdict(['/src/generated/**'], 'lib/src/generated/api.ts'), 'continue');
  });

  it('a folder, with or without a trailing /, covers everything below it', () => {
    assert.equal(verdict(['/fixtures/'], 'fixtures/a/b.json'), 'retry');
    assert.equal(verdict(['fixtures'], 'fixtures/a.json'), 'retry');
    assert.equal(verdict(['fixtures/'], 'fixtures/a.json'), 'retry');
    assert.equal(verdict(['/fixtures/'], 'src/fixtures.ts'), 'continue');
  });

  it('plain globs keep their meaning', () => {
    assert.equal(verdict(['config/**', '*.lock'], 'config/app/settings.json'), 'retry');
    assert.equal(verdict(['config/**', '*.lock'], 'yarn.lock'), 'retry');
    assert.equal(verdict(['config/**', '*.lock'], 'src/a.ts'), 'continue');
    assert.equal(verdict(['/'], 'src/a.ts'), 'continue', 'the root itself is no file glob');
  });
});
