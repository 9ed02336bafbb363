import sharp from "sharp";
import type { Exif } from "sharp";
import { CARD_HEIGHT, CARD_WIDTH } from "./paper-card.ts";
import { cardTexture, composePhoto, NoiseTile, placeCard, sceneSvg } from "./scene.ts";
import type { CardPlacement, CardTexture, SceneStyle, ShotView } from "./scene.ts";

/** One picture to draw, in display orientation. */
export interface PhotoSpec {
  style: SceneStyle;
  view: ShotView;
  width: number;
  height: number;
  card: { texture: CardTexture; place: CardPlacement } | null;
}

export type Orientation = 1 | 6 | 8;

/** The body's card, drawn once (its text is the costly part) and then placed into each photo. */
export async function renderCardTexture(fragment: string): Promise<CardTexture> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}">${fragment}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return cardTexture({ data, width: info.width, height: info.height });
}

/** The picture's RGB pixels as the photographer saw it (display orientation). */
export async function renderRaster(spec: PhotoSpec, noise: NoiseTile): Promise<Buffer> {
  const scene = await sharp(Buffer.from(sceneSvg(spec.style, spec.view, spec.width, spec.height, 0.5)))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const card = spec.card ? placeCard(spec.card.texture, spec.card.place) : null;
  return composePhoto(
    { data: scene.data, width: scene.info.width, height: scene.info.height },
    spec.width,
    spec.height,
    card,
    spec.view,
    noise,
  );
}

/**
 * Encodes as the camera would: for orientation 6 or 8 the pixels are stored turned on their side with the
 * EXIF tag saying how to turn them back, as a camera held upright does.
 */
export async function encodeCameraJpeg(
  rgb: Buffer,
  width: number,
  height: number,
  orientation: Orientation,
  quality: number,
  exif: Exif,
): Promise<Buffer> {
  let img = sharp(rgb, { raw: { width, height, channels: 3 } });
  if (orientation === 6) img = img.rotate(270);
  else if (orientation === 8) img = img.rotate(90);
  return img
    .jpeg({ quality, chromaSubsampling: "4:2:0" })
    .withMetadata({ orientation, density: 300 })
    .withExif(exif)
    .toBuffer();
}

/** An in-camera copy: re-encoded at another quality, optionally made smaller, EXIF kept. */
export async function retouchedCopy(
  original: Buffer,
  quality: number,
  longSide: number | null,
  merge: Exif,
): Promise<Buffer> {
  let img = sharp(original);
  if (longSide !== null) img = img.resize(longSide, longSide, { fit: "inside" });
  return img.jpeg({ quality }).keepExif().withExifMerge(merge).toBuffer();
}
