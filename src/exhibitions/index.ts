/**
 * The exhibitions module: curated, redacted, consented selections for the public (issue 16). Exhibitions move
 * draft → review → approved → published → withdrawn; items are photos, bodies' photos, text panels and charts
 * of the catalogue's public aggregates (frozen at their review), with captions in Arabic and English and redaction layers; a second person reviews every item; published images are
 * clean copies (solid fills, re-encoded from pixels, no metadata) tied to their originals by a manifest.
 * Other modules and the shells use only what is exported here.
 */
export {
  createExhibition,
  updateExhibition,
  listExhibitions,
  showExhibition,
  submitExhibition,
  returnToDraft,
  approveExhibition,
  publishExhibition,
  withdrawExhibition,
  type CreateExhibition,
  type Language,
} from "./exhibitions.ts";
export { addItem, updateItem, removeItem, orderItems, addRegion, removeRegion, reviewItem, DEFAULT_LAYERS, type AddItem, type AddRegion } from "./items.ts";
export { cleanCopy, fillsFor, snap, uprightSize, FILL, BLOCK, type CleanCopy, type LayerRegion, type Rect } from "./clean-copy.ts";
export { jpegStructure, essentialJpeg, metadataFindings, markerName, JpegStructureError, type Segment, type JpegStructure } from "./jpeg-markers.ts";
export { LANGUAGES, LAYERS, ITEM_KINDS, CHARTS, CHART_FORMAT, EXHIBITION_STATUSES, EVERYTHING_MODES, type Layers, type ExhibitionItem, type ExhibitionRegion, type ExhibitionSuggestion, type ExhibitionSummary, type ExhibitionView, type Manifest, type ManifestImage, type ManifestChart, type ChartData } from "./contracts.ts";
export { exportExhibition, type ExportResult } from "./export.ts";
export { buildPublication, previewItem, MANIFEST_FORMAT, type Publication } from "./publication.ts";
export { sweepConsent, registerExhibitionJobs, JOB_CONSENT_SWEEP, type SweepResult } from "./consent-sweep.ts";
export { buildDemoExhibition } from "./demo.ts";
export { suggestFaces, listSuggestions, acceptSuggestion, discardSuggestion, enqueueFaceSuggestions, JOB_FACE_SUGGEST } from "./suggestions.ts";
export { suggestFaceRegions, loadDetector, mapBack, mergeBoxes, iou, DETECTOR, ANGLES, type Angle, type FaceSuggestion } from "./face-suggestions.ts";
