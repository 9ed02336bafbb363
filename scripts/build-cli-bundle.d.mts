/** Types of scripts/build-cli-bundle.mjs for the TypeScript callers that import it. */
export function buildCliBundle(root: string, outfile: string): Promise<string>;
