// OpenAI's SDK behind a function, so that the bundles can keep it in a chunk of its own
// (scripts/lazyModules.mjs) that is read only when a run uses the `openai-compatible` provider.
import OpenAI from 'openai';

export function openaiSdk(): typeof OpenAI {
  return OpenAI;
}
