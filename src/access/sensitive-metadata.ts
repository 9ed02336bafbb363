import type { Actor } from "../core/actor.ts";
import type { Policy } from "./policy.ts";

/**
 * Metadata that could lead back to a source: the camera's serial numbers (which tie every photograph to one
 * device and so to one photographer), owner and author fields, where the picture was taken, and where the file
 * sat on the medium (folder names are often personal). Roles without `metadata.sensitive` never see these
 * fields; the rest of the metadata (make, model, capture time, dimensions) stays visible.
 *
 * Names are matched case-insensitively on the last part of a key ("Exif.BodySerialNumber", "xmp:Creator"),
 * so EXIF, XMP, IPTC and maker-note spellings are caught alike.
 */
const PATTERNS: RegExp[] = [
  /serial/, // SerialNumber, BodySerialNumber, InternalSerialNumber, LensSerialNumber, CameraSerialNumber
  /owner/, // OwnerName, CameraOwnerName
  /^gps/, // every GPS tag
  /^(latitude|longitude|altitude|location|position|city|sublocation|country|state|province)$/,
  /^(artist|author|by-?line|by-?linetitle|creator|credit|contact|copyright|copyrightnotice|rights|usage ?terms)$/,
  /^xp(author|comment|subject|title|keywords)$/,
  /^(usercomment|imagedescription|hostcomputer|imageuniqueid|documentname|cameraid|shuttercount|imagecount)$/,
  /^(path|paths|filepath|filename|directory|sourcefile|originalfilename|rawfilename|preservedfilename|originaldocumentid|documentid|instanceid|derivedfrom)$/,
];

export function isSensitiveField(name: string): boolean {
  const last = name.split(/[.:/]/).pop() ?? name;
  const key = last.toLowerCase().replace(/[_\s]/g, "");
  return PATTERNS.some((p) => p.test(key));
}

/** A copy of the value with every sensitive field removed, at any depth. */
export function withoutSensitiveFields<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => withoutSensitiveFields(v as unknown)) as T;
  if (value && typeof value === "object" && !Buffer.isBuffer(value) && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (!isSensitiveField(k)) out[k] = withoutSensitiveFields(v);
    }
    return out as T;
  }
  return value;
}

/** Metadata as this actor may see it. */
export function metadataFor<T>(policy: Policy, actor: Actor, metadata: T): T {
  return policy.allows(actor, "metadata.sensitive") ? metadata : withoutSensitiveFields(metadata);
}
