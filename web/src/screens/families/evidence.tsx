import { useTranslation } from "react-i18next";
import type { Evidence } from "../../api/types/families.ts";
import { useFormat } from "../../app/prefs.tsx";
import { useTerms } from "../catalogue/shared.tsx";

type Params = NonNullable<Evidence["params"]>;
/** Counts shown in the reader's digits; years, dates and card numbers are shown as written. */
const COUNTS = new Set(["share", "days", "months", "age", "min", "max", "similarity"]);

/**
 * One term of a candidate's score in the reader's language: the message of its key, with codes (sex, the
 * family's certainty, a number's role, marks) translated. Rows ranked before keys existed have only the English.
 */
export function EvidenceText({ e }: { e: Evidence }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const types = useTerms("mark_type");
  const regions = useTerms("body_region");
  if (!e.key || !e.params) {
    return (
      <span lang="en" dir="ltr">
        {e.text}
      </span>
    );
  }
  const p: Params = e.params;
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(p)) values[k] = typeof v === "number" && COUNTS.has(k) ? fmt.num(v) : typeof v === "string" && COUNTS.has(k) ? fmt.num(Number(v)) : String(v ?? "");
  for (const k of ["sex", "reported", "recorded"] as const) {
    if ((e.key === "sexAgrees" || e.key === "sexExcluded") && typeof p[k] === "string") values[k] = t(`families.sex.${p[k]}`);
  }
  values.about = p.approx === true ? t("families.evidence.about") : "";
  values.sure = typeof p.certainty === "string" ? t(`families.evidence.sure.${p.certainty}`, { defaultValue: "" }) : "";
  // a DNA result's date, as written (YYYY-MM-DD), in the reader's sentence
  values.when = typeof p.on === "string" && p.on ? t("families.evidence.dnaOn", { on: p.on }) : "";
  if (typeof p.role === "string") values.role = t(`families.evidence.roles.${p.role}`, { defaultValue: p.role });
  if (e.parts) {
    const list = e.parts.map((m) =>
      t(`families.evidence.mark.${m.fit}${m.fit === "none" && !m.region ? "Anywhere" : ""}`, {
        type: types.label(m.type),
        region: regions.label(m.region),
        bodyRegion: regions.label(m.bodyRegion),
      }),
    );
    values.list = list.join(t("families.evidence.separator"));
    values.bare = p.bare === true ? t("families.evidence.bare") : "";
  }
  // Rows ranked before the key existed called identical names "partly the same"; similarity 1.00 is never that.
  const key = e.key === "namePartly" && p.similarity === "1.00" ? "nameSameNotEnough" : e.key;
  return <span dir="auto">{t(`families.evidence.${key}`, values)}</span>;
}
