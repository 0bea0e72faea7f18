import type { Plugin } from 'esbuild';

export interface LazySpec {
  functions: string[];
  constants?: Record<string, unknown>;
}
export const LAZY: Record<string, LazySpec>;
export function lazyModules(spec: Record<string, LazySpec>): Plugin;
