import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { Band, ReportView } from "../../api/types/families.ts";
import { usePrefs } from "../../app/prefs.tsx";
import { catalogue } from "../catalogue/api.ts";
import { portal as portalApi } from "./api.ts";
import { useTerms } from "../catalogue/shared.tsx";

/** A report's name in the reader's script first, the other after it; its reference when no name was given. */
export function reportName(r: Pick<ReportView, "ref" | "nameAr" | "nameLat">, lang: string): string {
  const [first, second] = lang === "ar" ? [r.nameAr, r.nameLat] : [r.nameLat, r.nameAr];
  if (first && second) return `${first} · ${second}`;
  return first ?? second ?? r.ref;
}

export function useReportName(): (r: Pick<ReportView, "ref" | "nameAr" | "nameLat">) => string {
  const { lang } = usePrefs();
  return (r) => reportName(r, lang);
}

export function BandBadge({ band }: { band: Band }) {
  const { t } = useTranslation();
  const cls = { strong: "badge badge-ok", likely: "badge badge-ok", review: "badge badge-warn", unlikely: "badge", exclude: "badge fam-badge-exclude" }[band];
  return (
    <span className={cls} data-band={band}>
      {t(`families.bands.${band}`)}
    </span>
  );
}

/** Splits a free list typed one per line or separated by commas (Arabic commas too). */
export function listOf(text: string): string[] {
  return text
    .split(/[\n,،]/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Runs one change and reloads the case; the error stays next to the form that caused it. */
export function useAct(onChange: () => Promise<void> = async () => {}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (act: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await act();
      await onChange();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

/**
 * A vocabulary's terms for a families form: from the catalogue for caseworkers, from the portal (the few the
 * family's forms need) for a family member, who may not read the catalogue.
 */
export function useFormTerms(vocabulary: "mark_type" | "body_region" | "governorate", inPortal: boolean): ReturnType<typeof useTerms> {
  return useTerms(vocabulary, inPortal ? portalApi.vocabulary : catalogue.vocabulary);
}

/** A labelled choice of one vocabulary term, "unknown" (the empty value) first. */
export function TermField({ id, label, value, onChange, vocabulary }: { id: string; label: string; value: string; onChange: (code: string) => void; vocabulary: ReturnType<typeof useTerms> }) {
  const { t } = useTranslation();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t("families.unknown")}</option>
        {vocabulary.terms.map((x) => (
          <option key={x.code} value={x.code}>
            {vocabulary.label(x.code)}
          </option>
        ))}
      </select>
    </div>
  );
}
