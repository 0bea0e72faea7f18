// An esbuild plugin that makes bundled modules evaluate on first use rather than when the bundle
// loads. Each listed module is replaced by one that forwards the named functions to the real
// module, required (and so evaluated) the first time one of them is called; constants are exported
// as they are. Importing a name the spec does not list fails the build.

/**
 * The tokenizer builds its BPE tables (a third of a second) when imported; activating the extension
 * and starting the CLI need none of it.
 */
export const LAZY = {
  // Its own file (dist/tokenizer.js, esbuild.mjs): 2.7 MB the engine and the CLI share, read only when counted.
  // The TAP parser's YAML diagnostics: 40 KiB of schema built at import, needed only for TAP output.
  'js-yaml': { functions: ['load'] },
  // A JavaScript parser (ESLint's own, under espree), for reading a literal config module: evaluated
  // only when a check's coverage folders are looked up in a jest.config.js.
  acorn: { functions: ['parse'], chunk: './acorn.js' },
  // The providers' SDKs (Anthropic's ~400 KiB, OpenAI's ~100 KiB): read when a run uses that
  // provider, never for vscode-lm or replay. Only the SDK is in the chunk, so no class of ours exists
  // twice (instanceof holds). `entry` is the chunk's source.
  './sdks/anthropic': { functions: ['anthropicSdk'], chunk: './anthropic-sdk.js', entry: 'src/core/model/sdks/anthropic.ts' },
  './sdks/openai': { functions: ['openaiSdk'], chunk: './openai-sdk.js', entry: 'src/core/model/sdks/openai.ts' },
  'gpt-tokenizer/encoding/o200k_base': { functions: ['countTokens', 'encode', 'decode'], constants: { ALL_SPECIAL_TOKENS: 'all' }, chunk: './tokenizer.js' },
};

/**
 * `chunk`: the module is built apart (a bundle of its own beside this one) and the forwarder
 * requires that file instead of bundling the module.
 * @param {Record<string, {functions: string[], constants?: Record<string, unknown>, chunk?: string, entry?: string}>} spec
 */
export function lazyModules(spec) {
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const filter = new RegExp(`^(${Object.keys(spec).map(escape).join('|')})$`);
  return {
    name: 'lazy-modules',
    setup(build) {
      // The forwarding module's own require of the real one resolves as usual.
      build.onResolve({ filter }, (args) => {
        if (args.namespace !== 'lazy') return { path: args.path, namespace: 'lazy', pluginData: { resolveDir: args.resolveDir } };
        const chunk = spec[args.path].chunk;
        return chunk ? { path: chunk, external: true } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => {
        const { functions, constants = {} } = spec[args.path];
        const lines = [
          'let __lazyReal;',
          `const __lazyLoad = () => (__lazyReal ??= require(${JSON.stringify(args.path)}));`,
          ...Object.entries(constants).map(([k, v]) => `export const ${k} = ${JSON.stringify(v)};`),
          ...functions.map((f) => `export function ${f}(...args) { return __lazyLoad().${f}(...args); }`),
        ];
        return { contents: lines.join('\n'), resolveDir: args.pluginData.resolveDir, loader: 'js' };
      });
    },
  };
}
