import type { Completion, CompletionRequest } from '../types';

/** The model port. Providers never decide anything about the run; they only answer. */
export interface ModelProvider {
  /** A label for traces and reports, e.g. `replay:demo.json`. Never contains a key. */
  readonly label: string;
  complete(req: CompletionRequest): Promise<Completion>;
}

/** A fault the loop cannot recover from by retrying (auth refused, model not found, script ended). */
export class ProviderFatalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderFatalError';
  }
}
