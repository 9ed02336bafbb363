import type { Archive } from "../../src/app/context.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { addExhibit, createDossier, freezeDossier } from "../../src/dossiers/index.ts";
import { demoCard } from "./archive.ts";
import { investigator } from "./catalogue.ts";

/** An archive holding a demo card of one body, and a dossier of two of its photos frozen as version 1. */
export async function frozenPhotoDossier(a: Archive, seed: string): Promise<{ dossierId: string; photos: string[] }> {
  const { dir: card } = await demoCard(1, false, seed);
  await ingestCard(a, operatorActor(), { path: card, label: "card" });
  const photos = (await a.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").where("media_kind", "=", "image").orderBy("sha256").limit(2).execute()).map((r) => r.sha256);
  const d = await createDossier(a, investigator, { name: "Branch 215" });
  for (const p of photos) await addExhibit(a, investigator, { dossierId: d.id, kind: "photo", ref: p, reasoning: "Card reads 215" });
  await freezeDossier(a, investigator, { id: d.id });
  return { dossierId: d.id, photos };
}
