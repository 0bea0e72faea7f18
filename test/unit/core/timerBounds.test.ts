// Durations a user sets can pass what a timer holds (2^31-1 ms, about 24.8 days); a longer
// setTimeout fires at once. The time limit is bounded by validation; a check's timer is clamped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { MAX_TIME_LIMIT_SECONDS, validateSettings } from '../../../src/core/settings';
import { runCommand } from '../../../src/core/verify/runner';
import { REPO } from '../../support/fixtures';

describe('timer bounds', () => {
  it('timeLimitSeconds above what a timer holds is refused, naming the bound', () => {
    assert.equal(MAX_TIME_LIMIT_SECONDS, 2147483);
    const r = validateSettings({ timeLimitSeconds: 30 * 86400 });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.issues[0]!.setting, 'fixUntilGreen.timeLimitSeconds');
    assert.match(r.issues[0]!.message, /from 10 to 2147483/);
    const ok = validateSettings({ timeLimitSeconds: MAX_TIME_LIMIT_SECONDS });
    assert.ok(ok.ok);
    assert.equal(ok.settings.timeLimitSeconds, MAX_TIME_LIMIT_SECONDS);
    // The schema VS Code validates with carries the same bound.
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { maximum?: number }> } } };
    assert.equal(pkg.contributes.configuration.properties['fixUntilGreen.timeLimitSeconds']!.maximum, MAX_TIME_LIMIT_SECONDS);
  });

  it('a check timeout longer than a timer holds does not fire at once', async function () {
    this.timeout(30_000);
    const r = await runCommand({ command: 'node -e "setTimeout(() => console.log(\'done\'), 300)"', cwd: REPO, timeoutMs: 30 * 86400 * 1000, outputLimitBytes: 4096 });
    assert.equal(r.timedOut, false);
    assert.equal(r.exitCode, 0);
    assert.match(r.output, /done/);
  });
});
