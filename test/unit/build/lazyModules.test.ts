// The bundles defer heavy modules to first use: the plugin's forwarding module, on a fixture whose
// evaluation is observable, and the tokenizer spec checked against the real module and its users.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import * as realTokenizer from 'gpt-tokenizer/encoding/o200k_base';
import { LAZY, lazyModules } from '../../../scripts/lazyModules.mjs';
import { REPO } from '../../support/fixtures';

describe('bundles: modules evaluated on first use', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-lazy-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function bundle(entry: string, spec: Parameters<typeof lazyModules>[0]): Promise<string> {
    const outfile = path.join(dir, 'out.cjs');
    await esbuild.build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent', plugins: [lazyModules(spec)], nodePaths: [path.join(dir, 'node_modules')] });
    return outfile;
  }

  function heavyPackage(): void {
    const pkg = path.join(dir, 'node_modules', 'heavy');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'heavy', type: 'module', exports: './index.js' }));
    writeFileSync(path.join(pkg, 'index.js'), "globalThis.heavyEvaluated = (globalThis.heavyEvaluated ?? 0) + 1;\nexport const KIND = 'k';\nexport function twice(x) { return 2 * x; }\nexport function other() { return 'other'; }\n");
  }

  it('loads the bundle without evaluating the module, then evaluates it once, at the first call', async () => {
    heavyPackage();
    writeFileSync(path.join(dir, 'entry.mjs'), "import { KIND, twice } from 'heavy';\nexport const kind = KIND;\nexport const run = (x) => twice(x);\n");
    const out = await bundle(path.join(dir, 'entry.mjs'), { heavy: { functions: ['twice'], constants: { KIND: 'k' } } });
    const g = globalThis as { heavyEvaluated?: number };
    delete g.heavyEvaluated;
    const m = createRequire(import.meta.url)(out) as { kind: string; run: (x: number) => number };
    assert.equal(g.heavyEvaluated, undefined, 'loading the bundle did not evaluate the module');
    assert.equal(m.kind, 'k');
    assert.equal(m.run(21), 42);
    assert.equal(m.run(1), 2);
    assert.equal(g.heavyEvaluated, 1, 'evaluated once, at the first call');
    delete g.heavyEvaluated;
  });

  it('fails the build when code imports a name the spec does not forward', async () => {
    heavyPackage();
    writeFileSync(path.join(dir, 'entry.mjs'), "import { other } from 'heavy';\nexport const run = () => other();\n");
    await assert.rejects(bundle(path.join(dir, 'entry.mjs'), { heavy: { functions: ['twice'] } }), /No matching export .* for import "other"/);
  });

  it("forwards every name the sources import from the tokenizer, with the real module's constants", () => {
    const spec = LAZY['gpt-tokenizer/encoding/o200k_base'];
    const src = readFileSync(path.join(REPO, 'src/core/tokens.ts'), 'utf8');
    const imported = /import \{([^}]+)\} from 'gpt-tokenizer\/encoding\/o200k_base'/.exec(src)![1]!.split(',').map((s) => s.trim().split(/\s+as\s+/)[0]!);
    assert.deepEqual([...imported].sort(), [...spec.functions, ...Object.keys(spec.constants ?? {})].sort());
    for (const [k, v] of Object.entries(spec.constants ?? {})) assert.equal((realTokenizer as Record<string, unknown>)[k], v, k);
    for (const f of spec.functions) assert.equal(typeof (realTokenizer as Record<string, unknown>)[f], 'function', f);
  });
});
