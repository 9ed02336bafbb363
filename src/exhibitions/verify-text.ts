import type { Manifest } from "./contracts.ts";

/** VERIFY.txt of an exported exhibition: how a stranger checks it with standard tools. */
export function verifyText(m: Manifest): string {
  return `How to check exhibition ${m.exhibition.ref}
${"=".repeat(30 + m.exhibition.ref.length)}

This folder is a published exhibition of the dalil archive: HTML pages, one image per shown item (images/),
manifest.json and this file. Every image is a redacted copy made from an original photograph. Nothing in an image
was changed beyond the redaction: you can check that, given the originals.

1. The images are the ones the manifest names.
     jq -r '.images[] | "\\(.fileSha256)  \\(.file)"' manifest.json | sha256sum -c -

2. Which original each image came from. "sha256" in manifest.json is the SHA-256 of the original photograph.
   With a package of the originals (a dalil evidence package names each original by its SHA-256):
     sha256sum ORIGINAL_FILE        # must equal the image's "sha256"

3. What was hidden, and who approved it. "redaction.record" is the SHA-256 of the redaction record, the
   canonical JSON (RFC 8785) of:
     {"block":16,"fills":{...},"item":ITEM,"layers":LAYERS,"original":SHA256,"regions":REGIONS,"v":"dalil.exhibition-redaction/1"}
   with "fills" as {"ground":[224,224,224],"hidden":[0,0,0],"silhouette":[64,64,64]} and the regions sorted as
   listed. The record's SHA-256 is written into the archive's public custody log, in the review event at position
   "redaction.logIndex", together with the reviewer ("approvedBy", an account id; never the author of the
   exhibition). Fetch that entry and its inclusion proof from the archive's log (dalil log, C2SP tlog-tiles).

4. The image is the original with exactly those regions filled. The original is turned upright by its EXIF
   orientation; each region of a layer that is on is grown outward to the 16-pixel grid and painted with a solid
   colour: black (0,0,0) for faces, numbers, identifying marks and background; with the "everything" layer the
   whole image is a plain ground (224,224,224) with the body's regions as a silhouette (64,64,64). The pixels are
   then JPEG-encoded (quality 90, 4:4:4, no metadata). So:
   - inside every filled region, every pixel of the image is exactly the fill colour;
   - outside them, the image equals the upright original up to JPEG compression (for example,
     ImageMagick: magick compare -metric PSNR upright-original.png image.jpg null:  gives a high PSNR);
   - with the same software (dalil, its sharp/libjpeg version) the image is re-made byte for byte:
     dalil exhibition export writes the same bytes for the same records.

5. The images carry no metadata: no EXIF, XMP, ICC, IPTC/APP13, JFIF, comment or thumbnail, and nothing after
   the end-of-image marker. exiftool -a -G1 image.jpg lists only the file's own structure.

${m.charts?.length ? `6. The charts are the numbers the manifest names. Each chart's numbers are in charts/ as canonical JSON
   (aggregate counts of bodies open to the public, small counts withheld; no names, no references), frozen when
   the second person reviewed the chart item ("approvedBy", "logIndex"):
     jq -r '.charts[] | "\\(.dataSha256)  \\(.file)"' manifest.json | sha256sum -c -

` : ""}Items that show an identified person appear only with the family's recorded consent to public display; if the
consent is withdrawn, the item is taken down from the live exhibition and left out of the next export.
`;
}
