/**
 * The checks a photo's own header answers, without comparing it with the rest of the card: structure faults,
 * bytes after the end, editing software named in the Software tag or XMP, a Photoshop resource block, a
 * damaged EXIF block, the modification time.
 */
import { editorNamed, xmpEditTraces, type PhotoHeader } from "./header.ts";
import { finding, type Finding } from "./findings.ts";

/** Bytes after EOI that are ordinary padding some writers leave (zeros, fill bytes) and say nothing. */
const TRAILING_PADDING_LIMIT = 16;

export function photoChecks(sha256: string, h: PhotoHeader, inCameraCopy: boolean): Finding[] {
  const out: Finding[] = [];
  for (const p of h.structure.problems) out.push(finding(sha256, "structure", "look", p.code, p.params));
  if (h.structure.trailing > TRAILING_PADDING_LIMIT || h.structure.trailingIsJpeg) {
    out.push(
      finding(sha256, "structure", "strong", "trailingBytes", {
        bytes: h.structure.trailing,
        what: h.structure.trailingIsJpeg ? "trailingJpeg" : "trailingOther",
      }),
    );
  }
  const v = h.layout?.values ?? {};
  const editor = editorNamed(v.software);
  if (editor) out.push(finding(sha256, "software", "strong", "editorSoftware", { software: editor }));
  const traces = xmpEditTraces(h.xmp);
  if (traces.length) out.push(finding(sha256, "software", "strong", "xmpTraces", { traces: traces.join(", ") }));
  if (h.photoshop) out.push(finding(sha256, "software", "look", "photoshopBlock", { count: h.photoshop.ids.length }));
  if (h.layout?.faults.length) out.push(finding(sha256, "exif", "look", "exifFaults", { faults: h.layout.faults.join(", ") }));
  if (h.layout?.faults.includes("makernote:outside")) out.push(finding(sha256, "exif", "look", "makerNoteUnreadable"));
  if (v.modified && v.captured && v.modified !== v.captured) {
    if (editor) out.push(finding(sha256, "exif", "strong", "modifiedByEditor", { modified: v.modified, captured: v.captured, software: editor }));
    // The camera's own retouch menu re-dates the copies it makes (CSC_/SSC_ names): worth knowing, not a sign.
    else out.push(finding(sha256, "exif", inCameraCopy ? "information" : "look", "modifiedAfterCapture", { modified: v.modified, captured: v.captured }));
  }
  const f = h.structure.frame;
  if (f && v.pixelWidth && v.pixelHeight && !inCameraCopy) {
    const same = (v.pixelWidth === f.width && v.pixelHeight === f.height) || (v.pixelWidth === f.height && v.pixelHeight === f.width);
    if (!same) out.push(finding(sha256, "exif", "strong", "exifSizeMismatch", { exif: `${v.pixelWidth}×${v.pixelHeight}`, image: `${f.width}×${f.height}` }));
  }
  return out;
}
