export type ReadmeBase = { base: string; from: string; none?: undefined; error?: undefined } | { none: string; base?: undefined; error?: undefined } | { error: string; base?: undefined; none?: undefined };
export function readmeBase(o: { flag?: string; env?: string; config?: string; repository?: string | { url?: string } }): ReadmeBase;
export function pictures(markdown: string): string[];
export function withoutPictures(markdown: string): string;
export function missingPictures(markdown: string, exists: (relativePath: string) => boolean): string[];
export function unreachablePictures(urls: readonly string[], fetchImpl?: typeof fetch): Promise<{ url: string; problem: string }[]>;
