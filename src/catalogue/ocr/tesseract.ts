/** The Tesseract pool: a worker per language lane, parameters never mixed between jobs, and the images it is given. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import Tesseract from "tesseract.js";
import { Invalid } from "../../core/errors.ts";
import { union, type Blob } from "./lines.ts";
import { say } from "../../core/messages.ts";

export interface OcrText {
  text: string;
  /** 0..1 */
  confidence: number;
}

/** One Tesseract worker and the parameters it holds; jobs run one after another so parameters never mix. */
export class Lane {
  private tail: Promise<unknown> = Promise.resolve();
  private params = "";
  pending = 0;

  constructor(private readonly worker: Tesseract.Worker) {}

  run(image: Buffer, psm: string, whitelist: string): Promise<OcrText> {
    this.pending++;
    const job = this.tail.then(async () => {
      const key = `${psm}\u0000${whitelist}`;
      if (key !== this.params) {
        await this.worker.setParameters({
          tessedit_pageseg_mode: psm as Tesseract.PSM,
          tessedit_char_whitelist: whitelist,
          user_defined_dpi: "300",
        });
        this.params = key;
      }
      const { data } = await this.worker.recognize(image);
      return { text: data.text.trim(), confidence: Math.max(0, Math.min(1, data.confidence / 100)) };
    });
    this.tail = job.catch(() => undefined).finally(() => this.pending--);
    return job;
  }

  terminate(): Promise<unknown> {
    return this.worker.terminate();
  }
}

export class Pool {
  constructor(private readonly lanes: Lane[]) {}
  run(image: Buffer, psm: string, whitelist: string): Promise<OcrText> {
    const lane = this.lanes.reduce((a, b) => (b.pending < a.pending ? b : a));
    return lane.run(image, psm, whitelist);
  }
  async terminate(): Promise<void> {
    await Promise.all(this.lanes.map((l) => l.terminate()));
  }
}

export async function makePool(lang: "eng" | "ara", langPath: string, n: number): Promise<Pool> {
  if (!existsSync(join(langPath, `${lang}.traineddata.gz`))) {
    throw new Invalid(say("ocr.languageData", { lang, langPath }));
  }
  const lanes: Lane[] = [];
  for (let i = 0; i < n; i++) {
    // A local folder as langPath is read from disk; cacheMethod "none" keeps tesseract.js from writing a
    // copy into the working directory. Nothing is fetched.
    const worker = await Tesseract.createWorker(lang, Tesseract.OEM.LSTM_ONLY, {
      langPath,
      gzip: true,
      cacheMethod: "none",
      logger: () => undefined,
      errorHandler: () => undefined,
    });
    lanes.push(new Lane(worker));
  }
  return new Pool(lanes);
}

/** A box of the ink mask as a PNG for Tesseract: black on white, scaled to `scale`, with a white margin. */
export async function inkPng(mask: Uint8Array, w: number, boxes: readonly Blob[], scale: number): Promise<Buffer> {
  let box = boxes[0]!;
  for (const b of boxes) box = union(box, b);
  const m = 4;
  const bw = box.x1 - box.x0 + 1 + 2 * m;
  const bh = box.y1 - box.y0 + 1 + 2 * m;
  const px = Buffer.alloc(bw * bh, 255);
  for (const b of boxes) {
    for (let y = b.y0; y <= b.y1; y++) {
      for (let x = b.x0; x <= b.x1; x++) if (mask[y * w + x]) px[(y - box.y0 + m) * bw + (x - box.x0 + m)] = 0;
    }
  }
  return sharp(px, { raw: { width: bw, height: bh, channels: 1 } })
    .resize({ width: Math.max(8, Math.round(bw * scale)), height: Math.max(8, Math.round(bh * scale)), kernel: "lanczos3" })
    .extend({ top: 12, bottom: 12, left: 16, right: 16, background: { r: 255, g: 255, b: 255 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** A printed label as a PNG with its text `height` pixels tall, dots above and below the letters kept. */
export function labelPng(mask: Uint8Array, w: number, b: Blob, height: number): Promise<Buffer> {
  const g = Math.round((b.y1 - b.y0 + 1) * 0.4);
  const h = Math.floor(mask.length / w);
  const grown = { ...b, y0: Math.max(0, b.y0 - g), y1: Math.min(h - 1, b.y1 + g), x0: Math.max(0, b.x0 - 2), x1: Math.min(w - 1, b.x1 + 2) };
  return inkPng(mask, w, [grown], height / (b.y1 - b.y0 + 1));
}
