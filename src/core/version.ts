import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

/** Named in every custody event as the software agent (PREMIS). */
export const SOFTWARE = { name: "dalil", version: pkg.version } as const;
