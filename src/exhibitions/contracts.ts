import { z } from "zod";

/**
 * The exhibitions module's contracts: zod schemas of what its use cases answer (decision 0015). Route tables name
 * them as `response`; the web app imports their types only.
 */

export const LANGUAGES = ["ar", "en"] as const;
export const EXHIBITION_STATUSES = ["draft", "review", "approved", "published", "withdrawn"] as const;
export const ITEM_KINDS = ["photo", "body", "text", "chart"] as const;
/** The catalogue's aggregate breakdowns a chart item may show (bodies marked public, by month, branch, …). */
export const CHARTS = ["byPhotoMonth", "byDeathMonth", "byBranch", "byHospital", "byFinding"] as const;
export const CHART_FORMAT = "dalil.exhibition-chart/1";
/** The redaction layers, each on or off per item (docs/exhibitions.md says what each hides). */
export const LAYERS = ["faces", "numbers", "marks", "background", "everything"] as const;
/** With the everything layer on: the body as a silhouette (its regions filled on a plain ground) or not at all. */
export const EVERYTHING_MODES = ["silhouette", "hidden"] as const;

export const Layers = z.object({
  faces: z.boolean(),
  numbers: z.boolean(),
  marks: z.boolean(),
  background: z.boolean(),
  everything: z.enum(["off", ...EVERYTHING_MODES]),
});
export type Layers = z.infer<typeof Layers>;

export const ExhibitionRegion = z.object({ id: z.string(), layer: z.enum(LAYERS), x: z.number(), y: z.number(), w: z.number(), h: z.number(), origin: z.enum(["drawn", "suggested"]), markedBy: z.string(), markedAt: z.string() });
export type ExhibitionRegion = z.infer<typeof ExhibitionRegion>;
/** A face the detector suggests (pixels of the upright image): not a region until a curator accepts it. */
export const ExhibitionSuggestion = z.object({
  id: z.string(),
  item: z.string(),
  layer: z.literal("faces"),
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
  score: z.number(),
  angle: z.number(),
  angles: z.array(z.number()),
  detector: z.string(),
  status: z.enum(["pending", "accepted", "discarded"]),
  foundAt: z.string(),
});
export type ExhibitionSuggestion = z.infer<typeof ExhibitionSuggestion>;
/** The job that looks for faces on one item (follow it at /api/jobs/:id). */
export const FaceSuggestJob = z.object({ job: z.string(), item: z.string() });

export const ExhibitionSummary = z.object({
  id: z.string(),
  ref: z.string(),
  title: z.object({ ar: z.string().nullable(), en: z.string().nullable() }),
  statement: z.object({ ar: z.string().nullable(), en: z.string().nullable() }),
  languages: z.array(z.enum(LANGUAGES)),
  status: z.enum(EXHIBITION_STATUSES),
  items: z.number(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  submittedBy: z.string().nullable(),
  approvedBy: z.string().nullable(),
  publishedAt: z.string().nullable(),
  withdrawnAt: z.string().nullable(),
});
export type ExhibitionSummary = z.infer<typeof ExhibitionSummary>;

/** A chart item's numbers as frozen at its review: labels and counts only (null: a withheld small cell). */
export const ChartData = z.object({
  v: z.literal(CHART_FORMAT),
  chart: z.enum(CHARTS),
  scope: z.literal("public"),
  minCount: z.number(),
  buckets: z.array(z.object({ value: z.string().nullable(), count: z.number().nullable(), labelAr: z.string().optional(), labelEn: z.string().optional() })),
});
export type ChartData = z.infer<typeof ChartData>;

export const ExhibitionItem = z.object({
  id: z.string(),
  position: z.number(),
  kind: z.enum(ITEM_KINDS),
  sha256: z.string().nullable(),
  bodyId: z.string().nullable(),
  /** A chart item: which breakdown, and its numbers once frozen by the review (null before). */
  chart: z.enum(CHARTS).nullable(),
  chartData: ChartData.nullable(),
  caption: z.object({ ar: z.string().nullable(), en: z.string().nullable() }),
  graphic: z.boolean(),
  layers: Layers,
  regions: z.array(ExhibitionRegion),
  /** SHA-256 of the redaction record (original, layers, regions, fills) as it stands. */
  record: z.string().nullable(),
  reviewed: z.object({ by: z.string(), at: z.string(), record: z.string(), current: z.boolean() }).nullable(),
  /** Whether the item may be shown: consent of the families of identified people it shows. */
  consent: z.enum(["not-needed", "given", "missing"]),
});
export type ExhibitionItem = z.infer<typeof ExhibitionItem>;

export const ExhibitionView = z.object({ summary: ExhibitionSummary, items: z.array(ExhibitionItem) });
export type ExhibitionView = z.infer<typeof ExhibitionView>;

export const GetExhibitionsAnswer = z.array(ExhibitionSummary);
export type GetExhibitionsAnswer = z.infer<typeof GetExhibitionsAnswer>;

/** One image of a published exhibition in its manifest (manifest.json). */
export const ManifestImage = z.object({
  file: z.string(),
  /** The original's SHA-256: the photograph this image was made from. */
  sha256: z.string(),
  /** The SHA-256 of the published file itself. */
  fileSha256: z.string(),
  item: z.string(),
  width: z.number(),
  height: z.number(),
  redaction: z.object({
    record: z.string(),
    layers: Layers,
    regions: z.array(z.object({ layer: z.enum(LAYERS), x: z.number(), y: z.number(), w: z.number(), h: z.number() })),
    approvedBy: z.string(),
    approvedAt: z.string(),
    logIndex: z.number(),
  }),
});
export type ManifestImage = z.infer<typeof ManifestImage>;

/** One chart of a published exhibition in its manifest: no original (it is not a photo), its data's SHA-256. */
export const ManifestChart = z.object({
  file: z.string(),
  item: z.string(),
  chart: z.enum(CHARTS),
  /** SHA-256 of the chart's frozen data (the canonical JSON in the file named). */
  dataSha256: z.string(),
  approvedBy: z.string(),
  approvedAt: z.string(),
  logIndex: z.number(),
});
export type ManifestChart = z.infer<typeof ManifestChart>;

export const Manifest = z.object({
  v: z.literal("dalil.exhibition-manifest/1"),
  exhibition: z.object({ ref: z.string(), publishedAt: z.string().nullable(), publishLogIndex: z.number().nullable() }),
  images: z.array(ManifestImage),
  /** Present when the exhibition has chart items. */
  charts: z.array(ManifestChart).optional(),
});
export type Manifest = z.infer<typeof Manifest>;

/** POST /api/exhibitions/:id/order: the draft's items in their new order. */
export const OrderedItems = z.array(ExhibitionItem);
export type OrderedItems = z.infer<typeof OrderedItems>;

/** POST /api/exhibition-items/:item/remove, /api/exhibition-regions/:id/remove: done (the record stays, marked removed). */
export const Removed = z.object({ ok: z.literal(true) });
export type Removed = z.infer<typeof Removed>;

// Inputs of the write use cases (decision 0021): the whole input, including the record the path names.
const RecordId = z.string().min(1).max(64);
const Bilingual = (max: number) => z.object({ ar: z.string().max(max).nullable().optional(), en: z.string().max(max).nullable().optional() }).strict();
const LayersPatch = z.object({ faces: z.boolean().optional(), numbers: z.boolean().optional(), marks: z.boolean().optional(), background: z.boolean().optional(), everything: z.enum(["off", ...EVERYTHING_MODES]).optional() }).strict();
const Pixels = z.number().int().min(0).max(100_000);
const Languages = z.array(z.enum(LANGUAGES)).min(1).max(2);

/** POST /api/exhibitions, `dalil exhibition create`. */
export const CreateExhibitionInput = z.object({ title: Bilingual(300), statement: Bilingual(8000).optional(), languages: Languages }).strict();

/** PUT /api/exhibitions/:id: a draft's titles, statements or languages (`id`: its id or reference). */
export const UpdateExhibitionInput = z.object({ id: RecordId, title: Bilingual(300).optional(), statement: Bilingual(8000).optional(), languages: Languages.optional() }).strict();

/** POST /api/exhibitions/:id/items: a photo (sha256), a body's photo (body, and which photo), a text panel or a chart (chart). */
export const AddItemInput = z
  .object({ exhibition: RecordId, kind: z.enum(ITEM_KINDS), sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(), body: z.string().max(64).optional(), chart: z.enum(CHARTS).optional(), caption: Bilingual(4000).optional(), graphic: z.boolean().optional(), layers: LayersPatch.optional() })
  .strict();

/** PUT /api/exhibition-items/:item: captions, the content warning and the layers of an item. */
export const UpdateItemInput = z.object({ item: RecordId, caption: Bilingual(4000).optional(), graphic: z.boolean().optional(), layers: LayersPatch.optional() }).strict();

/** POST /api/exhibitions/:id/order: every active item named once. */
export const OrderItemsInput = z.object({ exhibition: RecordId, order: z.array(z.string().max(64)).max(1000) }).strict();

/** POST /api/exhibition-items/:item/regions: a region of one layer, in pixels of the upright image. */
export const AddRegionInput = z.object({ item: RecordId, layer: z.enum(LAYERS), x: Pixels, y: Pixels, w: Pixels, h: Pixels, origin: z.enum(["drawn", "suggested"]).optional() }).strict();

/** POST /api/exhibition-items/:item/review: the second person confirms the item as it stands. */
export const ReviewItemInput = z.object({ item: RecordId }).strict();
