// Types of scripts/installGemini.mjs for the real-host tests.
export declare const GEMINI_VERSION: string;
export declare const GEMINI_DIR: string;
export declare function geminiEntry(dir?: string): string;
export declare function ensureGemini(): string;
