/**
 * The card reader on photographs without a card (made by the test generator: scenes, faces, noise, blank paper,
 * printed words, tiles): false readings per 1,000 such photos, printed beside the baseline of the same run — the
 * reader's raw line readings before the gate (digits it found on something bright), i.e. what it would have
 * proposed without asking for a card's evidence. Target: 0.
 *
 * `npm run bench -- ocr`; BENCH_OCR_PHOTOS sets how many photos (default 300).
 */
import { NO_CARD_KINDS, noCardPhoto } from "../src/archive/demo-card/no-card.ts";
import { createCardReader } from "../src/catalogue/ocr.ts";
import { row, timed } from "./support.ts";

export async function benchOcr(photos = Number(process.env.BENCH_OCR_PHOTOS ?? 300)): Promise<void> {
  console.log(`\nocr — ${photos} photos without a card (${NO_CARD_KINDS.join(", ")})`);
  const reader = await createCardReader({ workers: 1 });
  let proposed = 0;
  let ungated = 0;
  const byKind = new Map<string, number>();
  try {
    const { seconds } = await timed(async () => {
      for (let i = 0; i < photos; i++) {
        const { kind, jpeg } = await noCardPhoto("bench", i);
        const n = await reader.read(jpeg);
        if (n.detainee || n.branch || n.examiner) {
          proposed++;
          byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
        }
        // What the reader saw before the gate: any line of digits it would have read as a number.
        if (/[0-9\u0660-\u0669]/.test(n.raw) || n.detainee || n.branch || n.examiner) ungated++;
      }
    });
    const perThousand = (k: number) => (k * 1000) / photos;
    row("false readings per 1,000", perThousand(proposed).toFixed(1), {
      label: "raw digits before the gate",
      value: perThousand(ungated).toFixed(1),
      ratio: ungated === 0 ? 0 : proposed / ungated,
    });
    if (byKind.size) row("  of which", [...byKind].map(([k, v]) => `${k} ${v}`).join(", "));
    row("photos per second", (photos / seconds).toFixed(2));
  } finally {
    await reader.close();
  }
}
