import type { z } from "zod";
import type * as server from "../../../../src/exhibitions/contracts.ts";
/** Responses of the exhibitions routes (src/exhibitions). */
export const LAYERS = ["faces", "numbers", "marks", "background", "everything"] as const;
export type Layer = (typeof LAYERS)[number];
export const EVERYTHING = ["off", "silhouette", "hidden"] as const;
export const CHARTS = ["byPhotoMonth", "byDeathMonth", "byBranch", "byHospital", "byFinding"] as const;
export type Chart = (typeof CHARTS)[number];
export type ExhibitionSummary = server.ExhibitionSummary;
export type ExhibitionView = server.ExhibitionView;
export type ExhibitionItem = server.ExhibitionItem;
export type ExhibitionRegion = server.ExhibitionRegion;
export type ExhibitionSuggestion = server.ExhibitionSuggestion;
export type Layers = server.Layers;

/** Requests (decision 0021): the use cases' inputs without the fields the path gives. */
export type NewExhibition = z.input<typeof server.CreateExhibitionInput>;
export type ExhibitionEdit = Omit<z.input<typeof server.UpdateExhibitionInput>, "id">;
export type NewExhibitionItem = Omit<z.input<typeof server.AddItemInput>, "exhibition">;
export type ExhibitionItemEdit = Omit<z.input<typeof server.UpdateItemInput>, "item">;
export type NewExhibitionRegion = Omit<z.input<typeof server.AddRegionInput>, "item">;
