import { api, send, typedCall } from "../../api/client.ts";

/** The authenticity area's calls, typed with the server's contracts (src/authenticity/contracts.ts). */
const none = {} as never;

export const authenticity = {
  runs: () => typedCall("authenticityRuns", none),
  sources: () => typedCall("sources", none),
  /** Queues the analysis and waits for its job (a large card with content checks takes minutes). */
  run: async (source: string, onProgress?: (done: number, total: number) => void): Promise<void> => {
    const q = await typedCall("authenticityRun", { source }, { body: { content: true } });
    for (;;) {
      const j = await api.job(q.job);
      onProgress?.(j.progress.done, j.progress.total);
      if (j.status === "done") return;
      if (j.status === "failed") throw new Error(j.error ?? "the analysis failed");
      await new Promise((r) => setTimeout(r, 1000));
    }
  },
  card: (source: string) => typedCall("authenticityCard", { source }),
  photo: (sha256: string) => typedCall("authenticityPhoto", { sha256 }),
  ela: async (sha256: string) => (await send("authenticityEla", { sha256 })).blob(),
};
