// An esbuild plugin that makes bundled modules evaluate on first use rather than when the bundle
// loads. Each listed module is replaced by one that forwards the named functions to the real
// module, required (and so evaluated) the first time one of them is called; constants are exported
// as they are. Importing a name the spec does not list fails the build.

/**
 * The tokenizer builds its BPE tables (a third of a second) when imported; activating the extension
 * and starting the CLI need none of it.
 */
export const LAZY = {
  'gpt-tokenizer/encoding/o200k_base': { functions: ['countTokens', 'encode', 'decode'], constants: { ALL_SPECIAL_TOKENS: 'all' } },
};

/** @param {Record<string, {functions: string[], constants?: Record<string, unknown>}>} spec */
export function lazyModules(spec) {
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const filter = new RegExp(`^(${Object.keys(spec).map(escape).join('|')})$`);
  return {
    name: 'lazy-modules',
    setup(build) {
      // The forwarding module's own require of the real one resolves as usual.
      build.onResolve({ filter }, (args) => (args.namespace === 'lazy' ? undefined : { path: args.path, namespace: 'lazy', pluginData: { resolveDir: args.resolveDir } }));
      build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => {
        const { functions, constants = {} } = spec[args.path];
        const lines = [
          'let real;',
          `const load = () => (real ??= require(${JSON.stringify(args.path)}));`,
          ...Object.entries(constants).map(([k, v]) => `export const ${k} = ${JSON.stringify(v)};`),
          ...functions.map((f) => `export function ${f}(...args) { return load().${f}(...args); }`),
        ];
        return { contents: lines.join('\n'), resolveDir: args.pluginData.resolveDir, loader: 'js' };
      });
    },
  };
}
