/**
 * The one list of what could lead back to a source, for every reader and writer of metadata: intake marks a
 * photograph's sensitive fields with it, the viewers hide fields with it, custody histories strip event details
 * with it. Roles without `metadata.sensitive` never see these fields; the rest (make, model, capture time,
 * dimensions) stays visible.
 *
 * Two reaches:
 * - field names that are sensitive wherever they appear (a record, an event's detail, a photograph's metadata):
 *   the camera's serial numbers (which tie every photograph to one device and so to one photographer), owner and
 *   author fields, where the picture was taken, and where the file sat on the medium (folder names are often
 *   personal). Matched case-insensitively on the last part of a key ("Exif.BodySerialNumber", "xmp:Creator"), so
 *   EXIF, XMP, IPTC and maker-note spellings are caught alike.
 * - inside a photograph's own metadata, also the words a photographer or their software wrote (titles, captions,
 *   keywords, history, maker notes), every GPS and PNG text field, and whole XMP namespaces about rights and
 *   provenance. These names mean other things elsewhere (an event's `source` is a source id), so they are not
 *   stripped from records.
 */
const FIELD_PATTERNS: RegExp[] = [
  /serial/, // SerialNumber, BodySerialNumber, InternalSerialNumber, LensSerialNumber, CameraSerialNumber
  /owner/, // OwnerName, CameraOwnerName
  /^gps/, // every GPS tag
  /^(latitude|longitude|altitude|location|position|city|sublocation|country|state|province)$/,
  /^(artist|author|by-?line|by-?linetitle|creator|credit|contact|copyright|copyrightnotice|rights|usage ?terms)$/,
  /^xp(author|comment|subject|title|keywords)$/,
  /^(usercomment|imagedescription|hostcomputer|imageuniqueid|documentname|cameraid|shuttercount|imagecount)$/,
  /^(path|paths|filepath|filename|directory|sourcefile|originalfilename|rawfilename|preservedfilename|originaldocumentid|documentid|instanceid|derivedfrom)$/,
];

/** Names that, inside a photograph's metadata, can identify a person, a camera, a place or a computer. */
const METADATA_NAME =
  /serial|owner|artist|author|creator(?!tool)|copyright|rights|by-?line|credit|^source$|contact|writer|comment|hostcomputer|documentname|uniqueid|documentid|instanceid|derivedfrom|history|path|filename|city|country|province|state$|sub-?location|^location|locationcreated|locationshown|email|phone|address|description|caption|title|headline|keywords|subject$|instructions|person|gps|latitude|longitude|altitude|makernote|nickname/i;

/** Whole XMP namespaces about rights, provenance, owner and place. */
const SENSITIVE_XMP_NAMESPACES = new Set(["xmpRights", "xmpMM", "aux", "Iptc4xmpCore", "Iptc4xmpExt", "plus", "photoshop"]);

/** Metadata blocks of which every field is sensitive (positions; PNG text chunks, which are free text). */
const WHOLE_BLOCKS = ["gps", "png"];
/** Metadata blocks whose fields are sensitive by name. */
const NAMED_BLOCKS = ["ifd0", "exif", "interop", "ifd1", "iptc"];

/** Whether a field of any record is sensitive by its name. */
export function isSensitiveField(name: string): boolean {
  const last = name.split(/[.:/]/).pop() ?? name;
  const key = last.toLowerCase().replace(/[_\s]/g, "");
  return FIELD_PATTERNS.some((p) => p.test(key));
}

/** Whether a field of a photograph's metadata is sensitive by its name (the wider reach). */
export function isSensitiveMetadataField(name: string): boolean {
  return METADATA_NAME.test(name) || isSensitiveField(name);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The dotted paths ("exif.BodySerialNumber", "xmp.dc.creator") of a photograph's parsed metadata that are
 * sensitive, sorted: intake stores them beside the metadata so a reader hides exactly what intake marked.
 */
export function sensitiveMetadataPaths(parsed: Record<string, unknown>): string[] {
  const out: string[] = [];
  const fields = (block: string, all: boolean) => {
    const b = parsed[block];
    if (!isObject(b)) return;
    for (const k of Object.keys(b)) if (all || isSensitiveMetadataField(k)) out.push(`${block}.${k}`);
  };
  for (const block of NAMED_BLOCKS) fields(block, false);
  for (const block of WHOLE_BLOCKS) fields(block, true);
  if (parsed.comment !== undefined) out.push("comment");
  const xmp = parsed.xmp;
  if (isObject(xmp)) {
    for (const ns of Object.keys(xmp)) {
      const b = xmp[ns];
      if (!isObject(b)) continue;
      for (const k of Object.keys(b)) if (SENSITIVE_XMP_NAMESPACES.has(ns) || isSensitiveMetadataField(k)) out.push(`xmp.${ns}.${k}`);
    }
  }
  return out.sort();
}
