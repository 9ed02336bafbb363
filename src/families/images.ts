import sharp from "sharp";

/**
 * The images a family is shown, made from an original's bytes. None carries metadata (sharp writes none
 * unless asked), so nothing of the camera or the file travels with them.
 *
 * - face: a square of the photo around the face (the region a caseworker drew; by default the middle), small and
 *   blurred enough that the shape of a face and its colouring show but not its features: the family decides
 *   whether to see more.
 * - blurred: the whole photo, small and blurred the same way.
 * - plain: the whole photo at preview size, unblurred: only after the family asked and a caseworker approved.
 */
export type FamilyImageKind = "face" | "blurred" | "plain";

const FACE_EDGE = 240;
const BLUR_SIGMA = 7;

/**
 * Where the face is: the centre of a square (fractions of the photo's width and height) and its side (a
 * fraction of the photo's shorter edge). The square is moved inside the photo where it would overhang.
 */
export interface FaceRegion {
  cx: number;
  cy: number;
  size: number;
}

export const MIDDLE: FaceRegion = { cx: 0.5, cy: 0.5, size: 0.7 };

/** The square in pixels of a photo `width` × `height` (integers, inside the photo). */
export function squareOf(region: FaceRegion, width: number, height: number): { left: number; top: number; side: number } {
  const side = Math.max(1, Math.min(width, height, Math.round(Math.min(width, height) * region.size)));
  const clamp = (v: number, max: number) => Math.min(Math.max(0, v), max);
  return { side, left: clamp(Math.round(region.cx * width - side / 2), width - side), top: clamp(Math.round(region.cy * height - side / 2), height - side) };
}

export async function familyImage(original: Buffer, kind: FamilyImageKind, region: FaceRegion = MIDDLE): Promise<Buffer> {
  const base = sharp(original, { failOn: "error" }).rotate();
  if (kind === "plain") return base.resize({ width: 1280, height: 1280, fit: "inside", withoutEnlargement: true }).jpeg({ quality: 82 }).toBuffer();
  if (kind === "blurred") return base.resize({ width: 480, height: 480, fit: "inside", withoutEnlargement: true }).blur(BLUR_SIGMA).jpeg({ quality: 70 }).toBuffer();
  const { data, info } = await base.raw().toBuffer({ resolveWithObject: true });
  const { side, left, top } = squareOf(region, info.width, info.height);
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .extract({ left, top, width: side, height: side })
    .resize(FACE_EDGE, FACE_EDGE)
    .blur(BLUR_SIGMA)
    .jpeg({ quality: 70 })
    .toBuffer();
}
