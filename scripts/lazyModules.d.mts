import type { Plugin } from 'esbuild';

export interface LazySpec {
  functions: string[];
  constants?: Record<string, unknown>;
  /** Built apart: the forwarder requires this file (beside the bundle) instead. */
  chunk?: string;
}
export const LAZY: Record<string, LazySpec>;
export function lazyModules(spec: Record<string, LazySpec>): Plugin;
