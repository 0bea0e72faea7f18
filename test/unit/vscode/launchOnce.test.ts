// A VS Code run builds its models and discovers its checks once: the palette's path (prepare before
// the instruction box, then run what was prepared) through the folder's engine as folderEngine.ts
// builds it (launchingEngine over the core's launcher), on a real project whose checks are discovered
// and run by the real verifier. What is built is counted at the ports: each model the port builds,
// each discovery the engine logs.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { ReplayProvider } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import type { Settings } from '../../../src/core/settings';
import type { Logger } from '../../../src/core/types';
import { RunController } from '../../../src/vscode/controller';
import { launchingEngine } from '../../../src/vscode/launchingEngine';
import { NO_KEYS } from '../../../src/core/launch';
import { tempTree } from '../../support/fixtures';

describe('a VS Code run prepares once', function () {
  this.timeout(60_000);

  it('builds each model once and discovers the checks once, from preflight to the stop', async () => {
    const t = tempTree({
      'project/package.json': JSON.stringify({ name: 'once', private: true, scripts: { test: 'node --test test/' } }),
      'project/test/ok.test.js': "const test = require('node:test');\ntest('adds', () => { if (1 + 1 !== 2) throw new Error('no'); });\n",
    });
    try {
      const root = path.join(t.dir, 'project');
      const built: number[] = [];
      const logged: string[] = [];
      const logger: Logger = { info: (m) => void logged.push(m), warn: (m) => void logged.push(m), error: (m) => void logged.push(m), debug: () => undefined };
      const engine = launchingEngine(root, path.join(t.dir, 'storage'), {
        keys: NO_KEYS,
        model: (_m, rung) => {
          built.push(rung);
          return { ok: true, provider: new ReplayProvider({ responses: [] }) };
        },
        workspace: () => new FsWorkspace(root),
        logger,
      });
      const c = new RunController(root, 'once', { maxSteps: 8, tokenCeiling: 200000, timeLimitSeconds: 1800 }, undefined, { engine });
      const settings: Settings = { ...defaultSettings(), model: { ...defaultSettings().model, escalation: [{ provider: 'replay', id: 'strong.json', baseUrl: '' }] } };
      const launch = await c.prepare(() => ({ ok: true, settings }));
      assert.ok(launch.ok, JSON.stringify(!launch.ok && launch.refusal));
      assert.equal(launch.prepared.checks.discovered, true);
      // The instruction box would be here; then the run, from what was prepared.
      const report = await c.run(launch.prepared, '');
      assert.equal(report.stopReason, 'green', report.detail);
      assert.deepEqual(built, [0, 1], 'the run\'s own model and its one rung, each built once');
      const discoveries = logged.filter((l) => l.startsWith('checks discovered in'));
      assert.equal(discoveries.length, 1, `checks discovered once: ${discoveries.join(' | ')}`);
    } finally {
      t.cleanup();
    }
  });
});
