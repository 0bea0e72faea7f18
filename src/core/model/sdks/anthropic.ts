// Anthropic's SDK behind a function, so that the bundles can keep it in a chunk of its own
// (scripts/lazyModules.mjs) that is read only when a run uses the `anthropic` provider.
import Anthropic from '@anthropic-ai/sdk';

export function anthropicSdk(): typeof Anthropic {
  return Anthropic;
}
