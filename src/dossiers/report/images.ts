import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import type { Ctx } from "../../app/context.ts";
import { NotFound } from "../../core/errors.ts";
import { say } from "../../core/messages.ts";
import { BLURRED, renditionOf } from "../../archive/index.ts";
import { redactedImage } from "../redaction.ts";

/**
 * The picture printed for one photo at the recipient's clearance, written as a JPEG file beside the HTML (never a
 * data URL: 500 exhibits of inline images would sit in node's heap and in Chromium's DOM at once). Originals and
 * redacted copies are downscaled so no page carries more pixels than print needs.
 */
export type Clearance = "original" | "redacted" | "blurred";

export const PRINT_MAX_PX = 1200;
const JPEG_QUALITY = 80;

export interface PrintedImage {
  /** Path relative to the HTML file. */
  src: string;
  width: number;
  height: number;
}

export async function printImage(ctx: Ctx, sha256: string, clearance: Clearance, outDir: string): Promise<PrintedImage> {
  const name = `img/${sha256}.${clearance}.jpg`;
  const path = join(outDir, name);
  if (clearance === "blurred") {
    // Already small (640 px) and blurred at ingest: copied as is, so the report shows what the gallery shows.
    const blurred = await renditionOf(ctx.db.db, sha256, BLURRED);
    if (!blurred) throw new NotFound(say("rendition.noBlurred", { sha256 }));
    const bytes = await ctx.blobs.read(blurred);
    const meta = await sharp(bytes).metadata();
    await writeFile(path, bytes);
    return { src: name, width: meta.width ?? 640, height: meta.height ?? 480 };
  }
  // The original is streamed into the decoder (it can be tens of megabytes); the redacted copy is already upright.
  const input = clearance === "original" ? sharp({ failOn: "error" }) : sharp((await redactedImage(ctx, sha256)).bytes);
  const pipeline = input.rotate().resize({ width: PRINT_MAX_PX, height: PRINT_MAX_PX, fit: "inside", withoutEnlargement: true }).jpeg({ quality: JPEG_QUALITY });
  if (clearance === "original") {
    const stream = await ctx.blobs.get(sha256);
    stream.once("error", (e) => pipeline.destroy(e));
    stream.pipe(pipeline);
  }
  const info = await pipeline.toFile(path);
  return { src: name, width: info.width, height: info.height };
}
