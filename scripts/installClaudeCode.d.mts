// Types of scripts/installClaudeCode.mjs for the real-host tests.
export declare const CLAUDE_CODE_VERSION: string;
export declare const CLAUDE_CODE_DIR: string;
export declare function claudeBinary(dir?: string): string;
export declare function ensureClaudeCode(): string;
