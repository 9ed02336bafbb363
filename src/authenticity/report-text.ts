import type { CardReport } from "./analyse.ts";
import { wordFinding, type Lang } from "./messages.ts";

const HEAD = {
  en: { cameras: "Cameras and header signatures", findings: "Findings", none: "No finding above information.", photos: "photos", card: "card", severity: { information: "information", look: "look", strong: "strong" } },
  ar: { cameras: "الكاميرات وتواقيع الترويسات", findings: "النتائج", none: "لا نتيجة فوق مستوى المعلومة.", photos: "صور", card: "البطاقة", severity: { information: "معلومة", look: "تستحق النظر", strong: "قوية" } },
} as const;

/** The report as plain text in one language: what the CLI prints and the dossier annex quotes. */
export function reportText(r: CardReport, lang: Lang, title: string): string {
  const h = HEAD[lang];
  const lines = [title, "", wordFinding("cameraCount", { cameras: r.cameras.length, signatures: r.cameras.reduce((a, c) => a + c.signatures.length, 0), photos: r.counts.photos }, lang), "", h.cameras];
  for (const c of r.cameras) {
    lines.push(`  ${c.label}  ${[c.make, c.model].filter(Boolean).join(" ") || "?"}${c.serial ? `  #${c.serial}` : ""}  (${c.photos} ${h.photos})`);
    for (const s of c.signatures) {
      lines.push(`      ${s.signature}  ×${s.photos}  ${s.parts.frame} ${s.parts.subsampling} huffman:${s.parts.huffman} thumb:${s.parts.thumbnail} ifds:${s.parts.ifds} makernote:${s.parts.makerNote}${s.ijgQuality ? ` IJG q${s.ijgQuality}` : ""}`);
    }
  }
  lines.push("", h.findings);
  const names = new Map(r.photos.map((p) => [p.sha256, p.name ?? p.sha256.slice(0, 12)]));
  const shown = r.findings.filter((f) => f.severity !== "information" || f.photo === null);
  if (!r.findings.some((f) => f.severity !== "information")) lines.push(`  ${h.none}`);
  for (const f of shown) {
    lines.push(`  [${h.severity[f.severity]}] ${f.photo ? names.get(f.photo) : h.card}: ${wordFinding(f.key, f.params, lang)}`);
  }
  return lines.join("\n");
}
