import { callJson, send } from "../../api/client.ts";
import type { PhotoAuthenticity, RunSummary, RunView } from "../../api/types/authenticity.ts";

/** The authenticity area's calls, typed with the server's views (web/src/api/types/authenticity.ts). */
const none = {} as never;

export const authenticity = {
  runs: async () => (await callJson("authenticityRuns", none)) as RunSummary[],
  sources: async () => (await callJson("sources", none)) as { id: string; label: string; ingested: number; started_at: string }[],
  run: async (source: string) => (await callJson("authenticityRun", { source }, { body: { content: true } })) as RunView,
  card: async (source: string) => (await callJson("authenticityCard", { source })) as RunView,
  photo: async (sha256: string) => (await callJson("authenticityPhoto", { sha256 })) as PhotoAuthenticity,
  ela: async (sha256: string) => (await send("authenticityEla", { sha256 })).blob(),
};
