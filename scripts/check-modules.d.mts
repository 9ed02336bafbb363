/** Types of scripts/check-modules.mjs for the TypeScript tests that import it. */
export function checkModules(rootDir: string): string[];
