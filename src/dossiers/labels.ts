/**
 * What the dossier screen shows for an exhibit's target instead of its id: a body's reference (B-000123), an
 * entity's name or number, the body a review is of. Read through the modules' own use cases, so a target the reader
 * may not see keeps its bare id and gives nothing away (a hidden review, a body above their clearance).
 */
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { DalilError } from "../core/errors.ts";
import { getEntity, readBodies } from "../catalogue/index.ts";
import { getReview } from "../review/index.ts";
import type { ExhibitView } from "./dossiers.ts";
import type * as contracts from "./contracts.ts";

/** A label in each language of the interface: an entity's Arabic and English names, each standing in for the other. */
export type ExhibitLabel = contracts.ExhibitLabel;
export type ExhibitLabels = Record<string, ExhibitLabel>;

/** Labels keyed by exhibit ref; refs without one (photos, and whatever the reader may not see) are left out. */
export async function exhibitLabels(ctx: Ctx, actor: Actor, exhibits: readonly Pick<ExhibitView, "kind" | "ref">[]): Promise<ExhibitLabels> {
  const out: ExhibitLabels = {};
  const refs = (kind: string): string[] => [...new Set(exhibits.filter((e) => e.kind === kind).map((e) => e.ref))];
  const bodyIds = refs("body");
  if (bodyIds.length && ctx.policy.allows(actor, "catalogue.read")) {
    for (let i = 0; i < bodyIds.length; i += 1000) {
      for (const b of (await readBodies(ctx, actor, { ids: bodyIds.slice(i, i + 1000), limit: 1000 })).items) out[b.id] = { ar: b.ref, en: b.ref };
    }
  }
  for (const id of ["facility", "unit", "person"].flatMap(refs)) {
    const e = await quietly(() => getEntity(ctx, actor, id));
    const ar = e?.nameAr ?? e?.nameEn ?? e?.number;
    const en = e?.nameEn ?? e?.nameAr ?? e?.number;
    if (ar && en) out[id] = { ar, en };
  }
  for (const id of refs("review")) {
    const r = await quietly(() => getReview(ctx, actor, id));
    if (r) out[id] = { ar: r.content.bodyRef, en: r.content.bodyRef };
  }
  return out;
}

/** A target the reader may not see (or that is gone) has no label; anything else is a real failure. */
async function quietly<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof DalilError && e.status < 500) return null;
    throw e;
  }
}
