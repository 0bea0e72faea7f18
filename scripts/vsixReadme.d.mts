/** The .vsix README text (README.vsix.md with its screenshots inlined as data: URIs), read from `repo`. */
export function vsixReadme(repo: string): string;
