import { copyFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";

/**
 * The report's fonts, copied beside the HTML so it renders the same anywhere (and Chromium never falls back to
 * whatever the server has): Noto Naskh Arabic for Arabic, Noto Sans for Latin text and digits.
 *
 * Debian's full TTFs (fonts-noto-core) come first: with the web subsets of @fontsource, pdftotext splits words
 * and drops a final ن onto its own line (glyph metrics of the subset), so the PDF's text layer would not read
 * back as written. The @fontsource files remain the fallback where the Debian fonts are not installed.
 */
const require = createRequire(import.meta.url);
const DEBIAN = process.env.DALIL_FONT_DIR || "/usr/share/fonts/truetype/noto";

interface Face {
  family: string;
  weight: number;
  debian: string;
  fontsource: { pkg: string; file: string };
}

const FACES: Face[] = [
  { family: "Noto Naskh Arabic", weight: 400, debian: "NotoNaskhArabic-Regular.ttf", fontsource: { pkg: "@fontsource/noto-naskh-arabic", file: "noto-naskh-arabic-arabic-400-normal.woff2" } },
  { family: "Noto Naskh Arabic", weight: 700, debian: "NotoNaskhArabic-Bold.ttf", fontsource: { pkg: "@fontsource/noto-naskh-arabic", file: "noto-naskh-arabic-arabic-700-normal.woff2" } },
  { family: "Noto Sans", weight: 400, debian: "NotoSans-Regular.ttf", fontsource: { pkg: "@fontsource/noto-sans", file: "noto-sans-latin-400-normal.woff2" } },
  { family: "Noto Sans", weight: 700, debian: "NotoSans-Bold.ttf", fontsource: { pkg: "@fontsource/noto-sans", file: "noto-sans-latin-700-normal.woff2" } },
];

function sourceOf(f: Face): string {
  const deb = join(DEBIAN, f.debian);
  if (existsSync(deb)) return deb;
  return join(dirname(require.resolve(`${f.fontsource.pkg}/LICENSE`)), "files", f.fontsource.file);
}

/** Copies the font files into outDir/fonts and returns the @font-face rules that load them. */
export async function installFonts(outDir: string): Promise<string> {
  await mkdir(join(outDir, "fonts"), { recursive: true });
  const rules: string[] = [];
  for (const f of FACES) {
    const from = sourceOf(f);
    const name = basename(from);
    await copyFile(from, join(outDir, "fonts", name));
    const format = name.endsWith(".woff2") ? "woff2" : "truetype";
    rules.push(`@font-face{font-family:"${f.family}";font-weight:${f.weight};font-style:normal;font-display:block;src:url("fonts/${name}") format("${format}")}`);
  }
  return rules.join("\n");
}
