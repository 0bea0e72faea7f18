// Types of scripts/installCodex.mjs for the real-host tests.
export declare const CODEX_VERSION: string;
export declare const CODEX_DIR: string;
export declare function codexBinary(dir?: string): string;
export declare function ensureCodex(): string;
