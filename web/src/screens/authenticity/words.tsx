import { useTranslation } from "react-i18next";
import { useFormat } from "../../app/prefs.tsx";
import type { Finding, Severity } from "../../api/types/authenticity.ts";

/** A finding's sentence in the reader's language: its key and parameters, numbers in the reader's digits. */
export function FindingText({ f }: { f: Finding }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(f.params)) values[k] = typeof v === "number" ? fmt.num(v) : v;
  // {what} carries another sentence's key (bytes after the end: another JPEG, or unknown).
  if (typeof f.params.what === "string") values.what = t(`authenticity.messages.${f.params.what}`, { defaultValue: "" });
  return <span>{t(`authenticity.messages.${f.key}`, { ...values, defaultValue: f.key })}</span>;
}

export function SeverityBadge({ s }: { s: Severity }) {
  const { t } = useTranslation();
  return <span className={`aut-sev aut-sev-${s}`}>{t(`authenticity.severity.${s}`)}</span>;
}
