import sharp from "sharp";

/**
 * The images a family is shown, made from an original's bytes. None carries metadata (sharp writes none
 * unless asked), so nothing of the camera or the file travels with them.
 *
 * - face: the middle of the photo (a "face" photo is a close-up), square, small and blurred enough that the
 *   shape of a face and its colouring show but not its features: the family decides whether to see more.
 * - blurred: the whole photo, small and blurred the same way.
 * - plain: the whole photo at preview size, unblurred: only after the family asked and a caseworker approved.
 */
export type FamilyImageKind = "face" | "blurred" | "plain";

const FACE_EDGE = 240;
const BLUR_SIGMA = 7;

export async function familyImage(original: Buffer, kind: FamilyImageKind): Promise<Buffer> {
  const base = sharp(original, { failOn: "error" }).rotate();
  if (kind === "plain") return base.resize({ width: 1280, height: 1280, fit: "inside", withoutEnlargement: true }).jpeg({ quality: 82 }).toBuffer();
  if (kind === "blurred") return base.resize({ width: 480, height: 480, fit: "inside", withoutEnlargement: true }).blur(BLUR_SIGMA).jpeg({ quality: 70 }).toBuffer();
  const { data, info } = await base.raw().toBuffer({ resolveWithObject: true });
  const side = Math.max(1, Math.round(Math.min(info.width, info.height) * 0.7));
  const left = Math.round((info.width - side) / 2);
  const top = Math.round((info.height - side) / 2);
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .extract({ left, top, width: side, height: side })
    .resize(FACE_EDGE, FACE_EDGE)
    .blur(BLUR_SIGMA)
    .jpeg({ quality: 70 })
    .toBuffer();
}
