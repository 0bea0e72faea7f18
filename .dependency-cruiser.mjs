// The layers of src/ (issue 12), checked by `npm run lint:layers` (part of `npm run lint`).
// Imports flow one way, from the front ends down to the leaves; nothing imports uphill, and no two
// folders import each other, directly or round a loop.
//
//   0  core leaves     src/core/{types,settings,tokens,secrets,liveness,fileText,atomicWrite,home,endpoints,headline,money,modelName}.ts   (import only each other)
//   1  core parts      src/core/{edit,verify,model,policy}/           (leaves, and each other without a cycle)
//   2  trace           src/core/trace/                                (the run's record)
//   3  loop            src/core/loop/                                 (one run)
//   4  engine factory  src/core/engine.ts, launch.ts                  (settings → verifier, run; preflight → prepared run or refusal)
//   4b gate            src/core/gate/                                 (the checks and the run as tools for other agents)
//   4c bench           src/core/bench/                                (tasks from history, task × variant runs, the report)
//   5  front ends      src/cli/, src/vscode/, src/evals/              (cli and vscode never import each other)
//        5a              src/vscode/common/                             (the extension's words and state: no vscode,
//                                                                        no other src/vscode module; the webview uses them too)
//   6  composition     src/extension.ts                               (imported by nobody)
//
// A new folder under src/core must be placed in a layer here before it can be imported at all
// (rule core-folder-has-a-layer), so the picture above stays the whole truth.

const LEAF = '^src/core/(types|settings|tokens|secrets|liveness|fileText|atomicWrite|home|endpoints|headline|money|modelName)\\.ts$';
const PART = '^src/core/(edit|verify|model|policy)/';
const TRACE = '^src/core/trace/';
const LOOP = '^src/core/loop/';
const ENGINE = '^src/core/(engine|launch)\\.ts$';
const GATE = '^src/core/gate/';
const BENCH = '^src/core/bench/';
const FRONT = '^src/(cli|vscode|evals)/';
const ENTRY = '^src/extension\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'Two folders import each other, directly or round a loop: one of them belongs lower (move the shared part into a leaf).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycle',
      comment: 'Modules that import each other load in an order that depends on who is imported first.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'leaf-imports-only-leaves',
      comment: 'types, settings, tokens and secrets are leaves every layer may use: they import no other part of src.',
      severity: 'error',
      from: { path: LEAF },
      to: { path: '^src/', pathNot: LEAF },
    },
    {
      name: 'core-part-imports-downhill',
      comment: 'edit, verify, model and policy may use the leaves and each other, never the trace, the loop, the engine or a front end.',
      severity: 'error',
      from: { path: PART },
      to: { path: '^src/', pathNot: [LEAF, PART] },
    },
    {
      name: 'trace-imports-downhill',
      comment: 'The trace records runs; building or running one (loop, engine, evals) is above it.',
      severity: 'error',
      from: { path: TRACE },
      to: { path: '^src/', pathNot: [LEAF, PART, TRACE] },
    },
    {
      name: 'loop-imports-downhill',
      comment: 'The loop is built by the engine factory and driven by the front ends; it knows neither.',
      severity: 'error',
      from: { path: LOOP },
      to: { path: '^src/', pathNot: [LEAF, PART, TRACE, LOOP] },
    },
    {
      name: 'engine-imports-downhill',
      comment: 'The engine factory and the launcher serve every front end and so import none.',
      severity: 'error',
      from: { path: ENGINE },
      to: { path: '^src/', pathNot: [LEAF, PART, TRACE, LOOP, ENGINE] },
    },
    {
      name: 'gate-imports-downhill',
      comment: 'The tools other agents call (Language Model Tools, MCP) word what the engine found; the front ends host them.',
      severity: 'error',
      from: { path: GATE },
      to: { path: '^src/', pathNot: [LEAF, PART, TRACE, LOOP, ENGINE, GATE] },
    },
    {
      name: 'bench-imports-downhill',
      comment: 'The bench builds runs through the launcher and words nothing for a host; front ends (the CLI, later VS Code) drive it.',
      severity: 'error',
      from: { path: BENCH },
      to: { path: '^src/', pathNot: [LEAF, PART, TRACE, LOOP, ENGINE, BENCH] },
    },
    {
      name: 'core-folder-has-a-layer',
      comment: 'Every module under src/core belongs to a layer above; place a new one there first.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/core/', pathNot: [LEAF, PART, TRACE, LOOP, ENGINE, GATE, BENCH] },
    },
    {
      name: 'vscode-not-cli',
      comment: "The extension words its own messages and builds through the core; the CLI's flags never reach VS Code.",
      severity: 'error',
      from: { path: '^src/vscode/' },
      to: { path: '^src/(cli|evals)/' },
    },
    {
      name: 'cli-not-vscode',
      comment: 'The CLI runs without VS Code.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/vscode/' },
    },
    {
      name: 'evals-not-hosts',
      comment: 'The eval harness is a front end the CLI drives: it imports neither the CLI nor VS Code.',
      severity: 'error',
      from: { path: '^src/evals/' },
      to: { path: '^src/(cli|vscode)/' },
    },
    {
      name: 'vscode-common-runs-anywhere',
      comment: "src/vscode/common holds what the webview (media/), the engine bundle and the tests share: the run's state, its words, the panel's protocol. It imports neither the vscode API nor the rest of src/vscode, so it loads in a browser frame and in a plain Node test.",
      severity: 'error',
      from: { path: '^src/vscode/common/' },
      to: { path: ['^node_modules/@types/vscode/', '^src/vscode/(?!common/)', '^src/(cli|evals)/'] },
    },
    {
      name: 'nobody-imports-the-entry',
      comment: 'src/extension.ts composes the extension; it is an entry point, not a library.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: ENTRY },
    },
    {
      name: 'vscode-api-in-the-extension-only',
      comment: 'Only src/vscode and src/extension.ts may import the vscode module; the core and the other front ends run without it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/vscode/', ENTRY] },
      to: { path: '^node_modules/@types/vscode/' },
    },
    {
      name: 'front-ends-build-through-the-engine',
      comment: 'A front end gets its verifier and run from src/core/engine.ts (createCheckEngine, createRunEngine), so settings reach them one way. Types may still be imported. The extension builds through src/vscode/folderEngine.ts.',
      severity: 'error',
      from: { path: '^src/(cli|evals|vscode)/' },
      to: { path: '^src/core/(loop/run|verify/verifier|verify/discover)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    includeOnly: { path: ['^src/', '^node_modules/@types/vscode/'] },
    // `import type` is a dependency too: a type that flows uphill drags its layer with it.
    tsPreCompilationDeps: true,
    // node_modules may be a link (worktrees, scratch copies): @types/vscode is still under node_modules/.
    preserveSymlinks: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6', 'cjs'],
  },
};
