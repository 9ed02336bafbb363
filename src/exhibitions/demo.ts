/**
 * A small exhibition built from the archive's photographs to try the feature on the demo card (synthetic photos
 * only): four photos and a text panel, every redaction layer used, reviewed by a second person and published.
 * The regions are placed by proportion of each photo (where the demo card draws a body's face, its number card
 * and the room), not found by a detector; a curator would draw them on the photo.
 */
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { originalFacts, preservedOriginals } from "../archive/index.ts";
import { approveExhibition, createExhibition, publishExhibition, showExhibition, submitExhibition } from "./exhibitions.ts";
import { addItem, addRegion, originalBytes, reviewItem, updateItem } from "./items.ts";
import { uprightSize } from "./clean-copy.ts";
import type { ExhibitionSummary, Layers } from "./contracts.ts";

type Box = { x: number; y: number; w: number; h: number };
const share = (b: Box, width: number, height: number) => ({ x: Math.floor(b.x * width), y: Math.floor(b.y * height), w: Math.max(1, Math.floor(b.w * width)), h: Math.max(1, Math.floor(b.h * height)) });

const PLAN: { layers: Partial<Layers>; caption: { ar: string; en: string }; regions: { layer: "faces" | "numbers" | "marks" | "background" | "everything"; box: Box }[] }[] = [
  {
    layers: {},
    caption: { ar: "الوجه والرقم المكتوب مغطّيان.", en: "The face and the written number are covered." },
    regions: [{ layer: "faces", box: { x: 0.3, y: 0.05, w: 0.4, h: 0.35 } }, { layer: "numbers", box: { x: 0.05, y: 0.7, w: 0.35, h: 0.25 } }],
  },
  {
    layers: {},
    caption: { ar: "العلامات المميِّزة والخلفية مغطّاة.", en: "Identifying marks and the background are covered." },
    regions: [{ layer: "faces", box: { x: 0.3, y: 0.05, w: 0.4, h: 0.35 } }, { layer: "marks", box: { x: 0.55, y: 0.45, w: 0.15, h: 0.15 } }, { layer: "background", box: { x: 0, y: 0, w: 1, h: 0.12 } }],
  },
  {
    layers: { everything: "silhouette" },
    caption: { ar: "الجثمان معروض على هيئة ظلّ فقط.", en: "The body is shown as a silhouette only." },
    regions: [{ layer: "everything", box: { x: 0.2, y: 0.1, w: 0.6, h: 0.8 } }],
  },
  {
    layers: { everything: "hidden" },
    caption: { ar: "هذه الصورة غير معروضة؛ يبقى هذا النص مكانها.", en: "This photograph is not shown; this text stands in its place." },
    regions: [],
  },
];

export async function buildDemoExhibition(ctx: Ctx, author: Actor, reviewer: Actor): Promise<ExhibitionSummary> {
  if (author.id === reviewer.id) throw new Conflict(say("exhibition.demoTwoPeople"));
  const facts = await originalFacts(ctx.db.db, (await preservedOriginals(ctx.db.db)).sort());
  const photos = [...facts.values()].filter((f) => f.mediaKind === "image" && f.status === "preserved").slice(0, PLAN.length);
  if (photos.length === 0) throw new Conflict(say("exhibition.demoNoPhotos"));
  const ex = await createExhibition(ctx, author, {
    title: { ar: "عرض تجريبي: صور بعناية", en: "Demonstration: photographs, with care" },
    statement: {
      ar: "معرض تجريبي من صور اصطناعية، يبيّن كل طبقة من طبقات الحجب.",
      en: "A demonstration exhibition of synthetic photographs, showing each redaction layer.",
    },
    languages: ["ar", "en"],
  });
  await addItem(ctx, author, {
    exhibition: ex.id,
    kind: "text",
    caption: { ar: "كل صورة هنا اصطناعية. تبقى الصور مخفية حتى تختار أن تراها.", en: "Every photograph here is synthetic. Images stay hidden until you choose to see them." },
  });
  for (const [i, p] of photos.entries()) {
    const plan = PLAN[i]!;
    const item = await addItem(ctx, author, { exhibition: ex.id, kind: "photo", sha256: p.sha256, caption: plan.caption, graphic: true });
    const size = await uprightSize(await originalBytes(ctx, p.sha256));
    for (const r of plan.regions) await addRegion(ctx, author, { item: item.id, layer: r.layer, ...share(r.box, size.width, size.height) });
    await updateItem(ctx, author, { item: item.id, layers: { faces: true, numbers: true, marks: true, background: true, ...plan.layers } });
  }
  await submitExhibition(ctx, author, ex.id);
  for (const it of (await showExhibition(ctx, reviewer, ex.id)).items) await reviewItem(ctx, reviewer, { item: it.id });
  await approveExhibition(ctx, reviewer, ex.id);
  return publishExhibition(ctx, reviewer, ex.id);
}
