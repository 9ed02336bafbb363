import { useEffect, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { EVIDENCE_KINDS, LINK_CONFIDENCES, type EntityView, type EvidenceKind, type LinkConfidence, type LinkEnd, type LinkView } from "../../api/types/catalogue.ts";
import { Link } from "../../app/router.tsx";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { catalogue } from "./api.ts";
import { endPath, entityName, useAct, useTerms } from "./shared.tsx";
import { Person } from "../../components/Person.tsx";

/**
 * The links of a body or an entity (held by, examined at, commands …), each with its evidence, the reasoning
 * that connects them and a confidence; a link is never deleted, it is retracted with a reason and stays on
 * record (shown struck). A new link starts at this record and ends at an entity (or, from an entity, a body).
 */
export function LinksSection({ owner, ownerKind, canEdit, photos = [] }: { owner: LinkEnd; ownerKind: string; canEdit: boolean; photos?: string[] }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const types = useTerms("link_type");
  const links = useAsync(() => (owner.kind === "body" ? catalogue.bodyLinks(owner.id) : catalogue.entityLinks(owner.id)), [owner.kind, owner.id]);
  const names = useEndNames(links.data ?? [], owner);
  const [retracting, setRetracting] = useState<{ id: string; reason: string } | null>(null);
  const { busy, error, act } = useAct();

  const retract = async (e: FormEvent) => {
    e.preventDefault();
    if (!retracting) return;
    if (await act(() => catalogue.retractLink(retracting.id, retracting.reason.trim()))) {
      setRetracting(null);
      await links.reload();
    }
  };

  const items = links.data ?? [];
  return (
    <section className="card" aria-labelledby="links-title">
      <h2 id="links-title">{t("catalogue.links.title")}</h2>
      <ErrorNote error={links.error ?? error} />
      {links.data && items.length === 0 && <p className="muted">{t("catalogue.links.none")}</p>}
      <ul className="plain" data-testid="links">
        {items.map((l) => {
          const outgoing = l.from.id === owner.id;
          const other = outgoing ? l.to : l.from;
          return (
            <li key={l.id} className={`cat-link${l.retracted ? " retracted" : ""}`}>
              <p>
                {!outgoing && <span className="muted">{t("catalogue.links.incoming")} </span>}
                <strong>{types.label(l.type)}</strong> <Link to={endPath(other)}>{names.get(other.id) ?? other.id}</Link>{" "}
                <span className={`badge ${l.confidence === "confirmed" ? "badge-ok" : ""}`}>{t(`catalogue.links.confidence.${l.confidence}`)}</span>
                {l.retracted && <span className="badge badge-warn"> {t("catalogue.links.retracted")}</span>}
              </p>
              <blockquote dir="auto">{l.reasoning}</blockquote>
              <p className="muted small">
                {t("catalogue.links.evidence")}:{" "}
                {l.evidence.map((ev, i) => (
                  <span key={i}>
                    {t(`catalogue.links.evidenceKinds.${ev.kind}`)}{" "}
                    {ev.kind === "photo" ? (
                      <Link to={`/photo/${ev.ref}`} dir="ltr">
                        {ev.ref.slice(0, 12)}…
                      </Link>
                    ) : (
                      <bdi>{ev.ref}</bdi>
                    )}
                    {ev.note ? <span dir="auto"> ({ev.note})</span> : null}
                    {i < l.evidence.length - 1 ? " · " : ""}
                  </span>
                ))}
              </p>
              <p className="muted small">
                {fmt.dateTime(l.createdAt)} · <Person id={l.createdBy} />
                {l.retracted && (
                  <>
                    {" · "}
                    {t("catalogue.links.retractedBecause")} <span dir="auto">{l.retracted.reason}</span>
                  </>
                )}
              </p>
              {canEdit && !l.retracted && retracting?.id !== l.id && (
                <button type="button" className="link-button" onClick={() => setRetracting({ id: l.id, reason: "" })}>
                  {t("catalogue.links.retract")}
                </button>
              )}
              {retracting?.id === l.id && (
                <form className="inline-form" onSubmit={(e) => void retract(e)}>
                  <div className="field">
                    <label htmlFor={`retract-${l.id}`}>{t("catalogue.links.retractReason")}</label>
                    <input id={`retract-${l.id}`} dir="auto" required maxLength={2000} value={retracting.reason} onChange={(e) => setRetracting({ ...retracting, reason: e.target.value })} />
                  </div>
                  <button type="submit" disabled={busy}>
                    {t("catalogue.links.retract")}
                  </button>
                  <button type="button" onClick={() => setRetracting(null)}>
                    {t("common.cancel")}
                  </button>
                </form>
              )}
            </li>
          );
        })}
      </ul>
      {canEdit && <NewLinkForm owner={owner} ownerKind={ownerKind} photos={photos} onCreated={() => void links.reload()} />}
    </section>
  );
}

/** The names of the other ends of links: entities by name, bodies by reference. */
function useEndNames(links: LinkView[], owner: LinkEnd): Map<string, string> {
  const { lang } = usePrefs();
  const [names, setNames] = useState(new Map<string, string>());
  const key = links.map((l) => l.id).join(",");
  useEffect(() => {
    let alive = true;
    const ends = new Map<string, LinkEnd>();
    for (const l of links) for (const e of [l.from, l.to]) if (e.id !== owner.id) ends.set(e.id, e);
    void Promise.all(
      [...ends.values()].map(async (e): Promise<[string, string]> => {
        try {
          return [e.id, e.kind === "body" ? (await catalogue.body(e.id)).ref : entityName(await catalogue.entity(e.id), lang)];
        } catch {
          return [e.id, e.id];
        }
      }),
    ).then((pairs) => alive && setNames(new Map(pairs)));
    return () => {
      alive = false;
    };
    // The links' ids say when to look again.
  }, [key, lang, owner.id]);
  return names;
}

function NewLinkForm({ owner, ownerKind, photos, onCreated }: { owner: LinkEnd; ownerKind: string; photos: string[]; onCreated: () => void }) {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const fmt = useFormat();
  const types = useTerms("link_type");
  const usable = types.terms.filter((x) => !Array.isArray(x.extra.from) || (x.extra.from as unknown[]).includes(ownerKind));
  const [type, setType] = useState("");
  const [q, setQ] = useState("");
  const [found, setFound] = useState<EntityView[]>([]);
  const [target, setTarget] = useState("");
  const [bodyRef, setBodyRef] = useState("");
  const [evKind, setEvKind] = useState<EvidenceKind>(photos.length ? "photo" : "document");
  const [evRef, setEvRef] = useState(photos[0] ?? "");
  const [reasoning, setReasoning] = useState("");
  const [confidence, setConfidence] = useState<LinkConfidence>("probable");
  const { busy, error, act } = useAct();
  const chosenType = usable.find((x) => x.code === type) ?? usable[0];
  const toKinds = Array.isArray(chosenType?.extra.to) ? (chosenType.extra.to as string[]) : [];
  const toBody = toKinds.includes("body") && owner.kind === "entity";

  const search = async (e: FormEvent) => {
    e.preventDefault();
    await act(async () => {
      const r = await catalogue.entities(undefined, q.trim() || undefined, undefined, 50);
      const list = r.items.filter((x) => x.id !== owner.id && (toKinds.length === 0 || toKinds.includes(x.kind)));
      setFound(list);
      setTarget(list[0]?.id ?? "");
    });
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!chosenType) return;
    const ok = await act(async () => {
      const to: LinkEnd = toBody && bodyRef.trim() ? { kind: "body", id: (await catalogue.body(bodyRef.trim())).id } : { kind: "entity", id: target };
      await catalogue.createLink({ type: chosenType.code, from: owner, to, evidence: [{ kind: evKind, ref: evRef.trim() }], reasoning: reasoning.trim(), confidence });
    });
    if (ok) {
      setReasoning("");
      onCreated();
    }
  };

  return (
    <div data-testid="new-link">
      <h3>{t("catalogue.links.add")}</h3>
      <form className="inline-form" onSubmit={(e) => void search(e)} role="search">
        <div className="field">
          <label htmlFor="link-search">{t("catalogue.links.findEntity")}</label>
          <input id="link-search" type="search" dir="auto" value={q} onChange={(e) => setQ(e.target.value)} />
        </div>
        <button type="submit" disabled={busy}>
          {t("catalogue.links.search")}
        </button>
      </form>
      <form onSubmit={(e) => void submit(e)}>
        <div className="cat-form-grid">
          <div className="field">
            <label htmlFor="link-type">{t("catalogue.links.type")}</label>
            <select id="link-type" value={chosenType?.code ?? ""} onChange={(e) => setType(e.target.value)}>
              {usable.map((x) => (
                <option key={x.code} value={x.code}>
                  {types.label(x.code)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="link-target">{t("catalogue.links.target")}</label>
            <select id="link-target" value={target} onChange={(e) => setTarget(e.target.value)}>
              {found.length === 0 && <option value="">{t("catalogue.links.searchFirst")}</option>}
              {found.map((x) => (
                <option key={x.id} value={x.id}>
                  {t(`catalogue.entities.kinds.${x.kind}`)}: {entityName(x, lang)}
                </option>
              ))}
            </select>
          </div>
          {toBody && (
            <div className="field">
              <label htmlFor="link-body">{t("catalogue.links.orBody")}</label>
              <input id="link-body" dir="ltr" value={bodyRef} maxLength={64} onChange={(e) => setBodyRef(e.target.value)} />
            </div>
          )}
          <div className="field">
            <label htmlFor="link-confidence">{t("catalogue.links.confidenceLabel")}</label>
            <select id="link-confidence" value={confidence} onChange={(e) => setConfidence(LINK_CONFIDENCES.find((c) => c === e.target.value) ?? "probable")}>
              {LINK_CONFIDENCES.map((c) => (
                <option key={c} value={c}>
                  {t(`catalogue.links.confidence.${c}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="link-evidence-kind">{t("catalogue.links.evidenceKind")}</label>
            <select
              id="link-evidence-kind"
              value={evKind}
              onChange={(e) => {
                const k = EVIDENCE_KINDS.find((x) => x === e.target.value) ?? "document";
                setEvKind(k);
                setEvRef(k === "photo" ? (photos[0] ?? "") : "");
              }}
            >
              {EVIDENCE_KINDS.map((k) => (
                <option key={k} value={k}>
                  {t(`catalogue.links.evidenceKinds.${k}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="link-evidence">{t("catalogue.links.evidenceRef")}</label>
            {evKind === "photo" && photos.length > 0 ? (
              <select id="link-evidence" value={evRef} onChange={(e) => setEvRef(e.target.value)}>
                {photos.map((sha, i) => (
                  <option key={sha} value={sha}>
                    {t("catalogue.photoN", { n: fmt.num(i + 1) })}
                  </option>
                ))}
              </select>
            ) : (
              <input id="link-evidence" dir="auto" required maxLength={500} value={evRef} onChange={(e) => setEvRef(e.target.value)} />
            )}
          </div>
          <div className="field wide">
            <label htmlFor="link-reasoning">{t("catalogue.links.reasoning")}</label>
            <textarea id="link-reasoning" dir="auto" rows={3} required maxLength={8000} value={reasoning} onChange={(e) => setReasoning(e.target.value)} />
          </div>
        </div>
        <button type="submit" disabled={busy || !chosenType || (target === "" && !(toBody && bodyRef.trim())) || reasoning.trim().length < 3}>
          {t("catalogue.links.create")}
        </button>
      </form>
      <ErrorNote error={error} />
    </div>
  );
}
