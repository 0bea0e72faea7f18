// The manifest against DESIGN §7 and the core: every command, every setting with type, default,
// bounds, resource scope and a description, defaults equal to the core's, bounds equal to the
// validator's; trust and engine declarations.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { defaultSettings, validateSettings } from '../../../src/core/settings';
import { BENCH_COMMAND, COMMAND_IDS, GATE_AGENT_MODE_COMMAND } from '../../../src/vscode/common/commandIds';
import { explicitValues, SETTING_KEYS } from '../../../src/vscode/common/settingKeys';
import { MANIFEST_UNTRUSTED, MANAGE_TRUST } from '../../../src/vscode/common/trustWords';
import { readdirSync } from 'node:fs';
import { REPO } from '../../support/fixtures';

interface Prop {
  type: string;
  default: unknown;
  minimum?: number;
  maximum?: number;
  scope?: string;
  markdownDescription?: string;
  enum?: string[];
}
const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const props = pkg.contributes.configuration.properties as Record<string, Prop>;

function coreDefault(key: string): unknown {
  const d = defaultSettings() as unknown as Record<string, unknown>;
  if (key.startsWith('model.')) return (d.model as Record<string, unknown>)[key.slice(6)];
  return d[key];
}

describe('extension manifest', () => {
  it('contributes exactly the commands of DESIGN §7 (and Review Changes, Choose Model…, Gate Agent Mode, Benchmark Models), under the category "Fix Until Green"', () => {
    const ids = (pkg.contributes.commands as { command: string; category: string; title: string }[]).map((c) => c.command);
    // Gate Agent Mode (issue 30) registers on its own (src/vscode/gateAgentMode.ts).
    assert.deepEqual(ids, [...COMMAND_IDS, GATE_AGENT_MODE_COMMAND, BENCH_COMMAND]);
    assert.deepEqual(ids.sort(), ['fixUntilGreen.benchmarkModels', 'fixUntilGreen.chooseModel', 'fixUntilGreen.continue', 'fixUntilGreen.exportTrace', 'fixUntilGreen.gateAgentMode', 'fixUntilGreen.revertRun', 'fixUntilGreen.revertToBest', 'fixUntilGreen.review', 'fixUntilGreen.run', 'fixUntilGreen.runChecks', 'fixUntilGreen.setApiKey', 'fixUntilGreen.showPanel', 'fixUntilGreen.stop']);
    // The main command reads "Fix Until Green" once in the palette: it has no category of its own.
    const run = pkg.contributes.commands.find((c: { command: string }) => c.command === 'fixUntilGreen.run');
    assert.equal(run.title, 'Fix Until Green');
    assert.equal(run.category, undefined);
    for (const c of pkg.contributes.commands) if (c !== run) assert.equal(c.category, 'Fix Until Green', c.command);
  });

  it('shows Stop and Continue only while relevant', () => {
    const when = Object.fromEntries((pkg.contributes.menus.commandPalette as { command: string; when: string }[]).map((m) => [m.command, m.when]));
    assert.equal(when['fixUntilGreen.stop'], 'fixUntilGreen.running');
    assert.equal(when['fixUntilGreen.continue'], 'fixUntilGreen.canContinue && !fixUntilGreen.running');
    // Commands that need a run are hidden until one exists (context keys set by contextKeys.ts).
    for (const id of ['revertRun', 'revertToBest', 'exportTrace']) assert.equal(when[`fixUntilGreen.${id}`], 'fixUntilGreen.hasRun', id);
    assert.equal(when['fixUntilGreen.review'], 'fixUntilGreen.hasReview');
  });

  it('puts the model settings first in the Settings UI', () => {
    const order = (p: Prop): number => (p as unknown as { order: number }).order;
    const byOrder = Object.entries(props).sort((a, b) => order(a[1]) - order(b[1])).map(([k]) => k);
    assert.deepEqual(byOrder.slice(0, 3), ['fixUntilGreen.model.provider', 'fixUntilGreen.model.id', 'fixUntilGreen.model.baseUrl']);
    assert.equal(new Set(Object.values(props).map(order)).size, Object.keys(props).length, 'every setting has its own order');
  });

  it('declares every setting the extension reads, and no other', () => {
    assert.deepEqual(Object.keys(props), SETTING_KEYS.map((k) => `fixUntilGreen.${k}`));
  });

  it('gives every setting a type, the core default, resource scope and a markdown description', () => {
    for (const key of SETTING_KEYS) {
      const p = props[`fixUntilGreen.${key}`]!;
      assert.ok(p.type, `${key} has a type`);
      assert.equal(p.scope, 'resource', `${key} is resource-scoped`);
      assert.ok(p.markdownDescription && p.markdownDescription.length > 20, `${key} has a markdownDescription`);
      assert.deepEqual(p.default, coreDefault(key), `${key}'s default is the core's`);
    }
  });

  it("has the validator's bounds and enums for every number and choice", () => {
    let checked = 0;
    for (const key of SETTING_KEYS) {
      const p = props[`fixUntilGreen.${key}`]!;
      if (p.type === 'integer' || p.type === 'number') {
        assert.ok(p.minimum !== undefined, `${key} has a minimum`);
        const ok = (v: number): boolean => validateSettings({ [key]: v }).ok;
        assert.ok(ok(p.minimum!), `${key} = minimum is valid`);
        assert.ok(!ok(p.minimum! - (p.type === 'integer' ? 1 : 0.01)), `${key} below minimum is refused`);
        if (p.maximum !== undefined) {
          assert.ok(ok(p.maximum), `${key} = maximum is valid`);
          assert.ok(!ok(p.maximum + (p.type === 'integer' ? 1 : 0.01)), `${key} above maximum is refused`);
        }
        if (p.type === 'integer') assert.ok(!ok(p.minimum! + 0.5), `${key} must be whole`);
        checked++;
      }
      if (p.enum) {
        for (const v of p.enum) assert.ok(validateSettings({ [key]: v }).ok, `${key} = ${v}`);
        assert.ok(!validateSettings({ [key]: 'nonsense' }).ok, `${key} refuses other values`);
      }
    }
    assert.equal(checked, 10, 'every numeric setting was checked');
    const cb = (props['fixUntilGreen.confidenceBudget'] as unknown as { properties: Record<string, Prop> }).properties;
    for (const k of ['stepCost', 'noveltyGain']) {
      assert.deepEqual([cb[k]!.minimum, cb[k]!.maximum], [0, 1], k);
      assert.ok(validateSettings({ confidenceBudget: { [k]: 1 } }).ok && !validateSettings({ confidenceBudget: { [k]: 1.01 } }).ok, k);
    }
    assert.deepEqual([props['fixUntilGreen.maxSteps']!.minimum, props['fixUntilGreen.maxSteps']!.maximum], [1, 100]);
    assert.equal(props['fixUntilGreen.tokenCeiling']!.minimum, 1000);
    assert.deepEqual([props['fixUntilGreen.stallThreshold']!.minimum, props['fixUntilGreen.stallThreshold']!.maximum], [2, 20]);
    assert.equal(props['fixUntilGreen.timeLimitSeconds']!.minimum, 10);
    assert.deepEqual([props['fixUntilGreen.flakyReruns']!.minimum, props['fixUntilGreen.flakyReruns']!.maximum], [0, 5]);
  });

  it('reads only what the user set, folder over workspace over user', () => {
    const raw = explicitValues((k) =>
      k === 'maxSteps' ? { globalValue: 3, workspaceValue: 4, workspaceFolderValue: 5 } : k === 'tokenCeiling' ? { globalValue: 5000 } : k === 'model.id' ? { workspaceValue: 'm' } : undefined,
    );
    assert.deepEqual(raw, { maxSteps: 5, tokenCeiling: 5000, 'model.id': 'm' });
  });

  it('is disabled in untrusted and virtual workspaces, saying why', () => {
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, false);
    assert.match(pkg.capabilities.untrustedWorkspaces.description, /runs this workspace's own type checker, linter and tests/);
    assert.equal(pkg.capabilities.virtualWorkspaces.supported, false);
  });

  // Issue 40 walk of Restricted Mode: the extension's page said why it was off but not how to turn
  // it on. The rule: every refusal for want of trust is one sentence ending with the way out, by
  // the name VS Code gives it; the manifest's and each surface's come from trustWords.ts.
  it('says in Restricted Mode, on every surface, why it is off and the way out (Manage Workspace Trust)', () => {
    assert.equal(pkg.capabilities.untrustedWorkspaces.description, MANIFEST_UNTRUSTED);
    assert.match(MANIFEST_UNTRUSTED, new RegExp(`^[^.]+: trust this folder with ${MANAGE_TRUST}\\.$`), 'one sentence, the way out last');
    const dir = path.join(REPO, 'src', 'vscode');
    const sources = readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => ({ f, text: readFileSync(path.join(dir, f), 'utf8') }));
    const guards = sources.filter((x) => /!vscode\.workspace\.isTrusted/.test(x.text));
    assert.ok(guards.length >= 4, `the trust guards: ${guards.map((x) => x.f).join(', ')}`);
    for (const { f, text } of guards) {
      for (const line of text.split('\n').filter((l) => /!vscode\.workspace\.isTrusted/.test(l) || /isTrusted\)/.test(l))) {
        const at = text.indexOf(line);
        const next = text.slice(at, at + 400);
        assert.match(next, /untrustedSentence\(|UNTRUSTED_MESSAGE/, `${f}: a trust refusal says the shared sentence: ${next.slice(0, 200)}`);
      }
    }
  });

  it('targets the VS Code its types come from, and has an icon and the Marketplace fields', () => {
    const types = JSON.parse(readFileSync(path.join(REPO, 'node_modules', '@types', 'vscode', 'package.json'), 'utf8')).version as string;
    assert.equal(pkg.devDependencies['@types/vscode'], types);
    assert.equal(pkg.engines.vscode, `^${types}`);
    assert.ok(existsSync(path.join(REPO, pkg.icon)));
    assert.match(readFileSync(path.join(REPO, pkg.icon)).subarray(1, 4).toString(), /PNG/);
    for (const f of ['displayName', 'description', 'publisher', 'license', 'repository', 'categories', 'keywords', 'galleryBanner']) assert.ok(pkg[f], f);
    assert.ok(pkg.activationEvents.includes('onWebviewPanel:fixUntilGreen.panel'), 'the panel is restored after a reload');
  });
});
