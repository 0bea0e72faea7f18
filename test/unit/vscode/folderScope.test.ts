// The extension's half of the key rule's provenance (issue 29): which settings the workspace or the
// folder chose, as `inspect` reports them, is what core/model/keyTrust does not trust with a key.
import assert from 'node:assert/strict';
import type { InspectedValue, SettingKey } from '../../../src/vscode/common/settingKeys';
import { folderScopedKeys } from '../../../src/vscode/common/settingKeys';

describe('folderScopedKeys: settings the workspace or folder chose', () => {
  it('names a folder or workspace value, never a user-level one or a default', () => {
    const scopes: Partial<Record<SettingKey, InspectedValue>> = {
      'model.baseUrl': { globalValue: 'https://mine.example/v1', workspaceFolderValue: 'https://evil.example/v1' },
      'model.provider': { globalValue: 'openai-compatible' },
      'model.escalation': { workspaceValue: [{ provider: 'anthropic', id: 'x' }] },
      maxSteps: { globalValue: 5 },
      allowVerifierEdits: { workspaceFolderValue: true },
    };
    assert.deepEqual(folderScopedKeys((k) => scopes[k]), ['allowVerifierEdits', 'model.baseUrl', 'model.escalation'].sort((a, b) => folderOrder(a) - folderOrder(b)));
  });
});

/** The manifest's order, as folderScopedKeys returns them. */
function folderOrder(k: string): number {
  return ['maxSteps', 'allowVerifierEdits', 'model.provider', 'model.baseUrl', 'model.escalation'].indexOf(k);
}
