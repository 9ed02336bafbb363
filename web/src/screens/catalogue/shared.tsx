import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "../../app/router.tsx";
import { usePrefs } from "../../app/prefs.tsx";
import { useAsync } from "../../components/useAsync.ts";
import type { EntitySummary, LinkEnd, Term } from "../../api/types/catalogue.ts";
import { catalogue } from "./api.ts";
import "./catalogue.css";

/** Pieces the catalogue's screens share: blurred photo links, vocabulary labels, entity names, actions. */

/** A photograph as the gallery shows it: blurred, a link to the viewer (where revealing it is logged). */
export function Thumb({ sha256, label, size = 120 }: { sha256: string; label: string; size?: number }) {
  return (
    <Link to={`/photo/${sha256}`} className="cat-thumb" title={label}>
      <img src={catalogue.blurredUrl(sha256)} alt={label} width={size} height={size} loading="lazy" decoding="async" draggable={false} />
    </Link>
  );
}

/**
 * The labels of a vocabulary in the reader's language, by code (the code itself until they arrive). `load` reads
 * the terms elsewhere than the catalogue (the families portal serves the few its forms need).
 */
export function useTerms(vocabulary: string, load: (vocabulary: string) => Promise<Term[]> = catalogue.vocabulary): { terms: Term[]; label: (code: string | null | undefined) => string } {
  const { lang } = usePrefs();
  const { data } = useAsync(() => load(vocabulary), [vocabulary, load]);
  const terms = data ?? [];
  const label = useCallback(
    (code: string | null | undefined) => {
      if (!code) return "—";
      const term = terms.find((x) => x.code === code);
      return term ? (lang === "ar" ? term.labelAr : term.labelEn) : code;
    },
    [terms, lang],
  );
  return { terms, label };
}

/** An entity's name in the reader's language, falling back to the other language, its number, its id. */
export function entityName(e: Pick<EntitySummary, "id" | "nameAr" | "nameEn" | "number">, lang: string): string {
  const name = lang === "ar" ? (e.nameAr ?? e.nameEn) : (e.nameEn ?? e.nameAr);
  if (name && e.number) return `${name} (${e.number})`;
  return name ?? e.number ?? e.id;
}

export function endPath(end: LinkEnd): string {
  return end.kind === "body" ? `/bodies/${end.id}` : `/entities/${end.id}`;
}

/** A value from the history or a merge conflict, as text: lists joined, objects as JSON, nothing as a dash. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined || v === "") return "—";
  if (Array.isArray(v)) return v.length ? v.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(", ") : "—";
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    return typeof o.text === "string" ? o.text : JSON.stringify(v);
  }
  return String(v);
}

/** One action at a time on a screen: busy while it runs, its error kept to show, a notice when it is done. */
export function useAct(): { busy: boolean; error: unknown; done: string | null; act: (run: () => Promise<unknown>, doneText?: string) => Promise<boolean>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const act = useCallback(async (run: () => Promise<unknown>, doneText?: string) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await run();
      if (doneText) setDone(doneText);
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => {
    setError(null);
    setDone(null);
  }, []);
  return { busy, error, done, act, clear };
}

/** A text input's value for the server: trimmed, and empty as null (the field is cleared). */
export function orNull(s: string): string | null {
  const v = s.trim();
  return v === "" ? null : v;
}

/** The sensitivity marking as a badge (above "internal" it is worth seeing at a glance). */
export function SensitivityBadge({ value }: { value: string }) {
  const { t } = useTranslation();
  return <span className={`badge ${value === "restricted" || value === "confidential" ? "badge-warn" : ""}`}>{t(`catalogue.sensitivity.${value}`)}</span>;
}
