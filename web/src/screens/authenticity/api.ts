import { api, callJson, send } from "../../api/client.ts";
import type { PhotoAuthenticity, RunSummary, RunView } from "../../api/types/authenticity.ts";

/** The authenticity area's calls, typed with the server's views (web/src/api/types/authenticity.ts). */
const none = {} as never;

export const authenticity = {
  runs: async () => (await callJson("authenticityRuns", none)) as RunSummary[],
  sources: async () => (await callJson("sources", none)) as { id: string; label: string; ingested: number; started_at: string }[],
  /** Queues the analysis and waits for its job (a large card with content checks takes minutes). */
  run: async (source: string, onProgress?: (done: number, total: number) => void): Promise<void> => {
    const q = (await callJson("authenticityRun", { source }, { body: { content: true } })) as { job: string };
    for (;;) {
      const j = await api.job(q.job);
      onProgress?.(j.progress.done, j.progress.total);
      if (j.status === "done") return;
      if (j.status === "failed") throw new Error(j.error ?? "the analysis failed");
      await new Promise((r) => setTimeout(r, 1000));
    }
  },
  card: async (source: string) => (await callJson("authenticityCard", { source })) as RunView,
  photo: async (sha256: string) => (await callJson("authenticityPhoto", { sha256 })) as PhotoAuthenticity,
  ela: async (sha256: string) => (await send("authenticityEla", { sha256 })).blob(),
};
