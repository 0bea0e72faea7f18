// The CLI's commands that call a model, with the providers and their SDKs: the entry of
// dist/cliModel.js, loaded by main.ts only when one of them is named.
export { runCommand } from './runCommand';
export { evalCommand } from './evalCommand';
export { cliKeyPort, cliModelPort, createCliProvider, parseModelSpec } from './providers';
export { benchCommand } from './benchCommand';
