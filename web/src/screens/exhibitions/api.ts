import { api, typedCall, urlOf } from "../../api/client.ts";
import type { ExhibitionEdit, ExhibitionItemEdit, NewExhibition, NewExhibitionItem, NewExhibitionRegion } from "../../api/types/exhibitions.ts";

/** The exhibitions area's calls, typed with the server's views (web/src/api/types/exhibitions.ts). */
const none = {} as never;

export const exhibitions = {
  list: async () => await typedCall("exhibitions", none),
  create: async (input: NewExhibition) => await typedCall("createExhibition", none, { body: input }),
  show: async (id: string) => await typedCall("exhibition", { id }),
  update: async (id: string, input: ExhibitionEdit) => await typedCall("updateExhibition", { id }, { body: input }),
  addItem: async (id: string, input: NewExhibitionItem) => await typedCall("addExhibitionItem", { id }, { body: input }),
  updateItem: async (item: string, input: ExhibitionItemEdit) => await typedCall("updateExhibitionItem", { item }, { body: input }),
  removeItem: async (item: string) => await typedCall("removeExhibitionItem", { item }, { body: {} }),
  addRegion: async (item: string, input: NewExhibitionRegion) => await typedCall("addExhibitionRegion", { item }, { body: input }),
  removeRegion: async (id: string) => await typedCall("removeExhibitionRegion", { id }, { body: {} }),
  order: async (id: string, order: string[]) => await typedCall("orderExhibitionItems", { id }, { body: { order } }),
  review: async (item: string) => await typedCall("reviewExhibitionItem", { item }, { body: {} }),
  step: async (step: "submitExhibition" | "returnExhibition" | "approveExhibition" | "publishExhibition" | "withdrawExhibition", id: string) => await typedCall(step, { id }, { body: {} }),
  suggestions: async (item: string) => await typedCall("exhibitionSuggestions", { item }),
  /** Asks for face suggestions on one item and waits for the job (the detector takes seconds). */
  suggestFaces: async (item: string) => {
    const { job } = await typedCall("suggestFaces", { item }, { body: {} });
    for (;;) {
      const j = await api.job(job);
      if (j.status === "done") return;
      if (j.status === "failed") throw new Error(j.error ?? "failed");
      await new Promise((r) => setTimeout(r, 700));
    }
  },
  acceptSuggestion: async (id: string) => await typedCall("acceptSuggestion", { id }, { body: {} }),
  discardSuggestion: async (id: string) => await typedCall("discardSuggestion", { id }, { body: {} }),
  previewUrl: (item: string, version: string) => `${urlOf("exhibitionItemPreview", { item })}?v=${encodeURIComponent(version)}`,
};
