import type { Tx } from "../db/database.ts";
import { originalFacts, type OriginalFacts } from "../archive/index.ts";
import { cdb } from "./tables.ts";

/**
 * A body's photos in order, each with the archive's facts of its original (asked of the archive, which owns them:
 * `npm run bench -- bounds` measures this against the join it replaced). A photo whose original is unknown is
 * left out, as the join did.
 */
export async function photosWithFacts(tx: Tx, bodyId: string): Promise<{ photo: { original_sha256: string; role: string; position: number }; facts: OriginalFacts }[]> {
  const photos = await cdb(tx).selectFrom("body_photos").select(["original_sha256", "role", "position"]).where("body_id", "=", bodyId).orderBy("position").execute();
  const facts = await originalFacts(tx, photos.map((p) => p.original_sha256));
  return photos.flatMap((photo) => {
    const f = facts.get(photo.original_sha256);
    return f ? [{ photo, facts: f }] : [];
  });
}
