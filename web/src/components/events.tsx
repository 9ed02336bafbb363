import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.ts";
import { useFormat } from "../app/prefs.tsx";
import { Person } from "./Person.tsx";

/** Sources by label: the ids events carry mean nothing to a reader (one request per page, kept). */
let sourceLabels: Promise<Map<string, string>> | null = null;
function labelsOfSources(): Promise<Map<string, string>> {
  sourceLabels ??= api.sources().then(
    (rows) => new Map(rows.map((r) => [r.id, r.label])),
    () => {
      sourceLabels = null;
      return new Map<string, string>();
    },
  );
  return sourceLabels;
}

export function SourceLabel({ id }: { id: string }) {
  const { t } = useTranslation();
  const [label, setLabel] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    void labelsOfSources().then((m) => alive && setLabel(m.get(id) ?? ""));
    return () => {
      alive = false;
    };
  }, [id]);
  if (label === null) return <span className="muted">…</span>;
  return label ? <bdi>{label}</bdi> : <span className="muted">{t("events.aSource")}</span>;
}

/**
 * A value that is a record's internal id is said as the record: a person by name, a source by label; any other
 * record (an analysis run, a job) as "a record", since its id means nothing to a reader and its screen names it.
 */
function Value({ v }: { v: string }) {
  const { t } = useTranslation();
  if (/^usr_[a-z2-7]{26}$/.test(v) || v.startsWith("operator:") || v.startsWith("system:")) return <Person id={v} />;
  if (/^src_[a-z2-7]{26}$/.test(v)) return <SourceLabel id={v} />;
  if (/^[a-z]{2,5}_[a-z2-7]{26}$/.test(v)) return <span className="muted">{t("events.aRecord")}</span>;
  return <>{v}</>;
}

/** "revealed graphic image" → "events.types.revealed_graphic_image" */
export function eventTypeKey(type: string): string {
  return `events.types.${type.replace(/[^a-z0-9]+/gi, "_").toLowerCase()}`;
}

/** "thumbnail c617ddc1…, preview 64d7dc83…": the kinds made and the start of each hash. */
function describeRenditions(list: unknown[], t: (k: string, o?: Record<string, unknown>) => string): string {
  return list
    .map((r) => {
      const x = r as { kind?: string; sha256?: string };
      return `${t(`viewer.renditionKinds.${x.kind ?? ""}`, { defaultValue: x.kind ?? "?" })} ${(x.sha256 ?? "").slice(0, 12)}…`;
    })
    .join(" · ");
}

const SHOWN = ["reason", "source", "entry", "format", "size", "path", "warning", "checked", "failed", "bytes"];

/** What an event says beyond its type: the reason of a reveal first; ids and hashes left to right. */
export function EventDetail({ detail }: { detail: Record<string, unknown> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const keys = Object.keys(detail).sort((a, b) => {
    const ia = SHOWN.indexOf(a);
    const ib = SHOWN.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  if (keys.length === 0) return null;
  return (
    <dl className="inline-pairs">
      {keys.map((k) => {
        const v = detail[k];
        const text =
          typeof v === "string" ? <Value v={v} /> : typeof v === "number" ? fmt.num(v) : k === "renditions" && Array.isArray(v) ? describeRenditions(v, t) : JSON.stringify(v);
        return (
          <div key={k}>
            <dt>{t(`events.details.${k}`, { defaultValue: k })}</dt>
            <dd dir="auto" className={k === "reason" ? "reason" : undefined}>
              {text}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
