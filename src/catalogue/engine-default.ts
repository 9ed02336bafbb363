import { availableParallelism } from "node:os";
import { normaliseArabic } from "../core/arabic.ts";
import type { CatalogueEngine, CardReading, PhotoForGrouping, ProposedGroup } from "./engine.ts";
import { createCardReader } from "./ocr.ts";
import { proposeBodies, type GroupingPhoto } from "./grouping.ts";
import { NUMBER_ROLES, type CardNumbers } from "./card-numbers.ts";

/**
 * The archive's own engine: the card reader of ocr.ts and the grouping of grouping.ts behind the
 * CatalogueEngine interface. The reader gives numbers in Latin digits and says how the card wrote them; the
 * stored reading is put back into the card's own digits, so "as transcribed" means as on the card.
 */
const READER_NAME = "dalil-card-reader/1 (tesseract.js 7)";

function toArabicIndic(s: string): string {
  return s.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d)));
}

function readingsOf(n: CardNumbers): CardReading[] {
  const out: CardReading[] = [];
  for (const role of NUMBER_ROLES) {
    const v = n[role];
    if (!v) continue;
    const line = n.evidence?.lines.find((l) => l.role === role);
    const evidence = n.evidence && line ? { region: n.evidence.region, cardScore: n.evidence.cardScore, label: line.label, ocrConfidence: line.confidence } : undefined;
    out.push({ role, value: n.digits === "arabic-indic" ? toArabicIndic(v) : v, confidence: n.confidences?.[role] ?? n.confidence, ...(evidence ? { evidence } : {}) });
  }
  return out;
}

/** Back from stored readings to what the grouping reads (when a photo was read in another run). */
function numbersOf(readings: CardReading[]): CardNumbers | undefined {
  if (readings.length === 0) return undefined;
  const n: CardNumbers = { confidence: Math.min(...readings.map((r) => r.confidence ?? 0)), raw: "", digits: "latin", confidences: {} };
  for (const r of readings) {
    const v = normaliseArabic(r.value);
    n[r.role] = v;
    n.confidences![r.role] = r.confidence ?? 0;
  }
  return n;
}

export async function defaultEngine(): Promise<CatalogueEngine> {
  const workers = Math.max(1, Math.min(2, availableParallelism()));
  const reader = await createCardReader({ workers });
  const read = new Map<string, CardNumbers>();
  return {
    readerName: READER_NAME,
    async readCard(image, sha256) {
      const n = await reader.read(image);
      read.set(sha256, n);
      return readingsOf(n);
    },
    group(photos: PhotoForGrouping[]): ProposedGroup[] {
      const input: GroupingPhoto[] = photos.map((p) => ({
        sha256: p.sha256,
        path: p.path ?? p.sha256,
        ...(p.captureTime ? { captureTime: p.captureTime } : {}),
        ...(p.phash ? { phash: p.phash } : {}),
        ...((read.get(p.sha256) ?? numbersOf(p.readings)) ? { numbers: read.get(p.sha256) ?? numbersOf(p.readings) } : {}),
      }));
      const byPhoto = new Map(photos.map((p) => [p.sha256, p.readings]));
      return proposeBodies(input).groups.map((g) => {
        const numbers: ProposedGroup["numbers"] = [];
        for (const role of NUMBER_ROLES) {
          const v = g.numbers[role];
          if (!v) continue;
          // The reading this number rests on: the surest photo of the group that read this value.
          let best: { photo: string; r: CardReading } | null = null;
          for (const sha of g.photos) {
            for (const r of byPhoto.get(sha) ?? []) {
              if (r.role !== role || normaliseArabic(r.value) !== v) continue;
              if (!best || (r.confidence ?? 0) > (best.r.confidence ?? 0)) best = { photo: sha, r };
            }
          }
          if (best) numbers.push({ role, value: best.r.value, confidence: best.r.confidence, photo: best.photo });
        }
        return {
          photos: g.photos,
          numbers,
          reasons: g.reasons.map((text) => ({ code: "grouping", text })),
          score: g.confidence,
        };
      });
    },
    close: () => reader.close(),
  };
}
