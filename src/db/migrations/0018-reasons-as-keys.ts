import { sql, type Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Quarantine reasons, intake warnings and job failures as message keys (issue 20, decision 0022): originals gain
 * `quarantine_key`/`quarantine_params` and sightings `reason_key`/`reason_params` (the parameters as JSON), so
 * the intake and photo screens word a reason in the reader's language. The English text stays where it was (the
 * CLI, the log's sealed detail). Existing rows are converted where their text is one the archive wrote (the
 * patterns below, frozen as of this migration); any other text (a zip or FAT reader's refusal, a reason from an
 * older version) keeps no key and is shown verbatim, marked as English.
 */
const PATTERNS: readonly [RegExp, string, readonly string[]][] = [
  [/^the entry could not be opened$/, "quarantine.cannotOpen", []],
  [/^the file is empty \(0 bytes\)$/, "quarantine.empty", []],
  [/^named like an image \((.*)\) but its bytes are not a recognised format$/, "quarantine.namedLikeImageUnknown", ["ext"]],
  [/^named like an image \((.*)\) but its bytes are (\S+) \((\S+)\)$/, "quarantine.namedLikeImage", ["ext", "format", "mediaKind"]],
  [/^the format could not be identified from its bytes$/, "quarantine.unidentified", []],
  [/^named (\S*) but its bytes are (\S+); identified by its bytes$/, "intake.namedOtherFormat", ["ext", "format"]],
  [/^image of (\d+) bytes is larger than the rendition limit; preserved without renditions$/, "intake.tooLargeToRender", ["bytes"]],
  [/^The image declares more pixels than the archive will decode\.$/, "media.tooManyPixels", []],
  [/^The image took longer than (\d+) s to decode, which only crafted files do; it was not decoded\.$/, "media.timeout", ["seconds"]],
  [/^The bytes are not an image format the archive can render\.$/, "media.notImage", []],
  [/^The image uses a coding this archive cannot decode \((.*)\); the original is kept as it is\.$/, "media.coding", ["problem"]],
  [/^The image ends before its picture data does \(the file is truncated\); the original is kept as it is\.$/, "media.truncated", []],
  [/^The image data is damaged and cannot be decoded \((.*)\)\.$/, "media.damaged", ["problem"]],
  [/^The file is empty; there is no image to render\.$/, "media.empty", []],
  [/^The file is (\S+), not a photograph format the archive renders\.$/, "media.notPhotoFormat", ["format"]],
  [/^The image header gives no width or height\.$/, "media.noSize", []],
  [/^The image declares (\d+)×(\d+) pixels \((\d+) megapixels\), more than the (\d+) megapixels the archive decodes; it was not decoded\.$/, "media.megapixels", ["width", "height", "megapixels", "max"]],
  [/^The JPEG has more than (\d+) scans \(cameras write one, progressive files about ten\); files like this are made to keep decoders busy, so it was not decoded\.$/, "media.jpegScans", ["max"]],
];
const NUMERIC = new Set(["bytes", "seconds", "width", "height", "max"]);

/** The key and parameters (JSON) of a reason the archive wrote, or null for any other text. */
export function reasonKeyOf(text: string): { key: string; params: string } | null {
  for (const [re, key, names] of PATTERNS) {
    const m = re.exec(text);
    if (!m) continue;
    const params: Record<string, string | number> = {};
    names.forEach((n, i) => (params[n] = NUMERIC.has(n) ? Number(m[i + 1]) : m[i + 1]!));
    return { key, params: JSON.stringify(params) };
  }
  return null;
}

export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema.alterTable("originals").addColumn("quarantine_key", "text").execute();
  await db.schema.alterTable("originals").addColumn("quarantine_params", "text").execute();
  await db.schema.alterTable("sightings").addColumn("reason_key", "text").execute();
  await db.schema.alterTable("sightings").addColumn("reason_params", "text").execute();
  // A job's failure the same way (its English text stays in `error`); failures written before keep their text.
  await db.schema.alterTable("jobs").addColumn("error_key", "text").execute();
  await db.schema.alterTable("jobs").addColumn("error_params", "text").execute();
  // Distinct texts only: a card of thousands of empty files holds one reason.
  const originals = await sql<{ r: string }>`select distinct quarantine_reason as r from originals where quarantine_reason is not null`.execute(db);
  for (const { r } of originals.rows) {
    const k = reasonKeyOf(r);
    if (k) await sql`update originals set quarantine_key = ${k.key}, quarantine_params = ${k.params} where quarantine_reason = ${r}`.execute(db);
  }
  const sightings = await sql<{ r: string }>`select distinct reason as r from sightings where reason is not null`.execute(db);
  for (const { r } of sightings.rows) {
    const k = reasonKeyOf(r);
    if (k) await sql`update sightings set reason_key = ${k.key}, reason_params = ${k.params} where reason = ${r}`.execute(db);
  }
}
