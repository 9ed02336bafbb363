/** Types for ensure-built.mjs (a plain script, so npm can run it before anything is compiled). */
export function sourcesHash(): string;
export function isBuilt(): boolean;
export function ensureWebBuilt(opts?: { quiet?: boolean; force?: boolean }): boolean;
