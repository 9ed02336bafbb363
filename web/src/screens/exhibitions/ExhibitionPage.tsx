import { useRef, useState, type FormEvent, type PointerEvent } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { Person } from "../../components/Person.tsx";
import { useAct } from "../catalogue/shared.tsx";
import { CHARTS, EVERYTHING, LAYERS, type Chart, type ExhibitionItem, type ExhibitionSummary, type Layer } from "../../api/types/exhibitions.ts";
import { exhibitions } from "./api.ts";
import { SuggestionBoxes, SuggestionList } from "./FaceSuggestions.tsx";
import { WordsField } from "./WordsField.tsx";
import "./exhibitions.css";

type Rect = { x: number; y: number; w: number; h: number };

/**
 * One exhibition: its state and the steps open to this person, its items in order with captions, consent and
 * review, and for each photograph the image as it would be published (hidden until asked for), its layers and
 * its regions; a region is drawn by dragging on that image (or typed), in pixels of the upright photograph.
 */
export function ExhibitionPage({ params }: ScreenProps) {
  const { t } = useTranslation();
  const session = useSession();
  const view = useAsync(() => exhibitions.show(params.id!), [params.id]);
  const { busy, error, act } = useAct();
  const reload = () => view.reload();
  const [kind, setKind] = useState<"photo" | "body" | "text" | "chart">("photo");
  const [chart, setChart] = useState<Chart>(CHARTS[0]);
  const [ref, setRef] = useState("");
  const [capAr, setCapAr] = useState("");
  const [capEn, setCapEn] = useState("");

  if (!view.data) return <section aria-labelledby="exh-page-title"><h1 id="exh-page-title">{t("exhibitions.page.title")}</h1><ErrorNote error={view.error} />{view.loading && <p className="muted">{t("app.loading")}</p>}</section>;
  const { summary, items } = view.data;
  const draft = summary.status === "draft";
  const step = (s: Parameters<typeof exhibitions.step>[0]) => void act(async () => { await exhibitions.step(s, summary.id); reload(); });
  const add = async (e: FormEvent) => {
    e.preventDefault();
    await act(async () => {
      const caption = { ar: capAr.trim() || null, en: capEn.trim() || null };
      await exhibitions.addItem(summary.id, kind === "text" ? { kind, caption } : kind === "chart" ? { kind, chart, caption } : kind === "body" ? { kind, body: ref.trim(), caption } : { kind, sha256: ref.trim().toLowerCase(), caption });
      setRef("");
      setCapAr("");
      setCapEn("");
      reload();
    });
  };

  return (
    <section aria-labelledby="exh-page-title" className="exh-page">
      <div className="screen-head">
        <h1 id="exh-page-title">
          {summary.ref} — <span dir="auto">{summary.title.ar ?? summary.title.en}</span>
          {summary.title.ar && summary.title.en && <span className="muted"> · <span lang="en" dir="ltr">{summary.title.en}</span></span>}
        </h1>
        <p data-testid="exhibition-status">
          {t("exhibitions.fields.status")}: <strong>{t(`exhibitions.status.${summary.status}`)}</strong>
          {summary.submittedBy && <> · {t("exhibitions.page.submittedBy")} <Person id={summary.submittedBy} /></>}
          {summary.approvedBy && <> · {t("exhibitions.page.approvedBy")} <Person id={summary.approvedBy} /></>}
        </p>
      </div>
      {summary.statement.ar && <p lang="ar" dir="rtl">{summary.statement.ar}</p>}
      {summary.statement.en && <p lang="en" dir="ltr">{summary.statement.en}</p>}
      {draft && session.can("exhibition.edit") && <EditWords key={summary.updatedAt} summary={summary} onSaved={reload} />}
      <p className="muted small">{t("exhibitions.page.policy")}</p>
      <div className="exh-steps" role="group" aria-label={t("exhibitions.page.steps")}>
        {draft && session.can("exhibition.edit") && <button type="button" className="primary" disabled={busy} onClick={() => step("submitExhibition")}>{t("exhibitions.steps.submit")}</button>}
        {(summary.status === "review" || summary.status === "approved" || summary.status === "withdrawn") && session.can("exhibition.edit") && <button type="button" disabled={busy} onClick={() => step("returnExhibition")}>{t("exhibitions.steps.return")}</button>}
        {summary.status === "review" && session.can("exhibition.review") && <button type="button" className="primary" disabled={busy} onClick={() => step("approveExhibition")}>{t("exhibitions.steps.approve")}</button>}
        {summary.status === "approved" && session.can("exhibition.publish") && <button type="button" className="primary" disabled={busy} onClick={() => step("publishExhibition")}>{t("exhibitions.steps.publish")}</button>}
        {summary.status === "published" && session.can("exhibition.publish") && <button type="button" disabled={busy} onClick={() => step("withdrawExhibition")}>{t("exhibitions.steps.withdraw")}</button>}
        {summary.status === "published" && <a href={`/exhibitions/${summary.ref}/`}>{t("exhibitions.page.public")}</a>}
      </div>
      <ErrorNote error={error} />
      <ol className="exh-items" data-testid="exhibition-items">
        {items.map((it, i) => (
          <ItemCard
            key={it.id}
            item={it}
            draft={draft}
            inReview={summary.status === "review"}
            onChange={reload}
            move={(by) => {
              const order = items.map((x) => x.id);
              const j = i + by;
              if (j < 0 || j >= order.length) return undefined;
              [order[i], order[j]] = [order[j]!, order[i]!];
              return () => exhibitions.order(summary.id, order);
            }}
          />
        ))}
      </ol>
      {items.length === 0 && <p>{t("exhibitions.page.noItems")}</p>}
      {draft && session.can("exhibition.edit") && (
        <form className="exh-form" onSubmit={(e) => void add(e)} data-testid="exhibition-add-item">
          <h2>{t("exhibitions.add.title")}</h2>
          <div className="field">
            <label htmlFor="exh-kind">{t("exhibitions.fields.kind")}</label>
            <select id="exh-kind" value={kind} onChange={(e) => setKind(e.target.value as typeof kind)}>
              {(["photo", "body", "text", "chart"] as const).map((k) => <option key={k} value={k}>{t(`exhibitions.kind.${k}`)}</option>)}
            </select>
          </div>
          {kind === "chart" && (
            <div className="field">
              <label htmlFor="exh-chart">{t("exhibitions.add.chart")}</label>
              <select id="exh-chart" value={chart} onChange={(e) => setChart(e.target.value as Chart)} aria-describedby="exh-chart-help">
                {CHARTS.map((c) => <option key={c} value={c}>{t(`exhibitions.chart.${c}`)}</option>)}
              </select>
              <p id="exh-chart-help" className="small muted">{t("exhibitions.add.chartHelp")}</p>
            </div>
          )}
          {(kind === "photo" || kind === "body") && (
            <div className="field">
              <label htmlFor="exh-ref">{t(kind === "photo" ? "exhibitions.add.sha256" : "exhibitions.add.body")}</label>
              <input id="exh-ref" dir="ltr" required value={ref} onChange={(e) => setRef(e.target.value)} />
            </div>
          )}
          <WordsField id="exh-cap-ar" lang="ar" label={t("exhibitions.fields.captionAr")} value={capAr} onChange={setCapAr} max={4000} rows={2} />
          <WordsField id="exh-cap-en" lang="en" label={t("exhibitions.fields.captionEn")} value={capEn} onChange={setCapEn} max={4000} rows={2} />
          <button type="submit" className="primary" disabled={busy}>{t("exhibitions.add.submit")}</button>
        </form>
      )}
      <p><Link to="/exhibitions-work">{t("exhibitions.list.title")}</Link></p>
    </section>
  );
}

/** A draft's titles and statements, changed in place (PUT /api/exhibitions/:id). */
function EditWords({ summary, onSaved }: { summary: ExhibitionSummary; onSaved: () => void }) {
  const { t } = useTranslation();
  const { busy, error, act } = useAct();
  const [open, setOpen] = useState(false);
  const [titleAr, setTitleAr] = useState(summary.title.ar ?? "");
  const [titleEn, setTitleEn] = useState(summary.title.en ?? "");
  const [stAr, setStAr] = useState(summary.statement.ar ?? "");
  const [stEn, setStEn] = useState(summary.statement.en ?? "");
  if (!open) return <p><button type="button" onClick={() => setOpen(true)}>{t("exhibitions.page.editWords")}</button></p>;
  const save = (e: FormEvent) => {
    e.preventDefault();
    void act(async () => {
      await exhibitions.update(summary.id, { title: { ar: titleAr.trim() || null, en: titleEn.trim() || null }, statement: { ar: stAr.trim() || null, en: stEn.trim() || null } });
      setOpen(false);
      onSaved();
    });
  };
  return (
    <form className="exh-form" onSubmit={save} data-testid="exhibition-edit-words">
      <WordsField id="exh-edit-title-ar" lang="ar" label={t("exhibitions.fields.titleAr")} value={titleAr} onChange={setTitleAr} max={300} />
      <WordsField id="exh-edit-title-en" lang="en" label={t("exhibitions.fields.titleEn")} value={titleEn} onChange={setTitleEn} max={300} />
      <WordsField id="exh-edit-st-ar" lang="ar" label={t("exhibitions.fields.statementAr")} value={stAr} onChange={setStAr} max={8000} rows={3} />
      <WordsField id="exh-edit-st-en" lang="en" label={t("exhibitions.fields.statementEn")} value={stEn} onChange={setStEn} max={8000} rows={3} />
      <ErrorNote error={error} />
      <button type="submit" className="primary" disabled={busy}>{t("exhibitions.page.saveWords")}</button>{" "}
      <button type="button" disabled={busy} onClick={() => setOpen(false)}>{t("exhibitions.page.cancel")}</button>
    </form>
  );
}

function ItemCard({ item, draft, inReview, onChange, move }: { item: ExhibitionItem; draft: boolean; inReview: boolean; onChange: () => void; move: (by: -1 | 1) => (() => Promise<unknown>) | undefined }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const { busy, error, act } = useAct();
  const [shown, setShown] = useState(false);
  const [layer, setLayer] = useState<Layer>("faces");
  const [drag, setDrag] = useState<Rect | null>(null);
  const [editing, setEditing] = useState(false);
  const [capAr, setCapAr] = useState(item.caption.ar ?? "");
  const [capEn, setCapEn] = useState(item.caption.en ?? "");
  const start = useRef<{ x: number; y: number } | null>(null);
  const img = useRef<HTMLImageElement>(null);
  const canEdit = draft && session.can("exhibition.edit");
  const run = (fn: () => Promise<unknown>) => void act(async () => { await fn(); onChange(); });
  // Faces the detector suggests: shown apart from the regions, hiding nothing until accepted.
  const suggestions = useAsync(async () => (item.sha256 ? await exhibitions.suggestions(item.id) : []), [item.id, item.record]);
  const [asked, setAsked] = useState(false);
  const [looking, setLooking] = useState(false);
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  const decide = (fn: () => Promise<unknown>) => run(async () => { await fn(); await suggestions.reload(); });
  const lookForFaces = () =>
    void act(async () => {
      setLooking(true);
      try {
        await exhibitions.suggestFaces(item.id);
        setAsked(true);
        await suggestions.reload();
      } finally {
        setLooking(false);
      }
    });

  const toPixels = (e: PointerEvent): { x: number; y: number } => {
    const el = img.current!;
    const box = el.getBoundingClientRect();
    const sx = el.naturalWidth / box.width;
    const sy = el.naturalHeight / box.height;
    return { x: Math.max(0, Math.round((e.clientX - box.left) * sx)), y: Math.max(0, Math.round((e.clientY - box.top) * sy)) };
  };
  const down = (e: PointerEvent) => {
    if (!canEdit) return;
    start.current = toPixels(e);
    setDrag({ ...start.current, w: 0, h: 0 });
  };
  const drawTo = (e: PointerEvent) => {
    if (!start.current) return;
    const p = toPixels(e);
    setDrag({ x: Math.min(p.x, start.current.x), y: Math.min(p.y, start.current.y), w: Math.abs(p.x - start.current.x), h: Math.abs(p.y - start.current.y) });
  };
  const up = () => {
    start.current = null;
    if (drag && drag.w > 2 && drag.h > 2) run(() => exhibitions.addRegion(item.id, { layer, ...drag }));
    setDrag(null);
  };

  const caption = (
    <>
      {item.caption.ar && <p lang="ar" dir="rtl">{item.caption.ar}</p>}
      {item.caption.en && <p lang="en" dir="ltr">{item.caption.en}</p>}
    </>
  );
  return (
    <li className="exh-item" data-testid="exhibition-item" aria-label={`${t("exhibitions.fields.item")} ${fmt.num(item.position)}`}>
      <h2 className="exh-item-head">
        {t("exhibitions.fields.item")} {fmt.num(item.position)} · {t(`exhibitions.kind.${item.kind}`)}
      </h2>
      {!editing && caption}
      {editing && (
        <form
          className="exh-form"
          onSubmit={(e) => {
            e.preventDefault();
            run(async () => {
              await exhibitions.updateItem(item.id, { caption: { ar: capAr.trim() || null, en: capEn.trim() || null } });
              setEditing(false);
            });
          }}
        >
          <WordsField id={`cap-ar-${item.id}`} lang="ar" label={t("exhibitions.fields.captionAr")} value={capAr} onChange={setCapAr} max={4000} rows={2} />
          <WordsField id={`cap-en-${item.id}`} lang="en" label={t("exhibitions.fields.captionEn")} value={capEn} onChange={setCapEn} max={4000} rows={2} />
          <button type="submit" className="primary" disabled={busy}>{t("exhibitions.page.saveCaption")}</button>
        </form>
      )}
      <p className="small">
        {t("exhibitions.fields.consent")}: {t(`exhibitions.consent.${item.consent}`)} ·{" "}
        {item.reviewed ? (item.reviewed.current ? <>{t("exhibitions.review.done")} <Person id={item.reviewed.by} /></> : t("exhibitions.review.stale")) : t("exhibitions.review.none")}
      </p>
      {item.kind === "chart" && item.chart && <ChartNumbers item={item} />}
      {item.sha256 && (
        <>
          <fieldset className="exh-layers" disabled={!canEdit || busy}>
            <legend>{t("exhibitions.fields.layers")}</legend>
            {LAYERS.filter((l) => l !== "everything").map((l) => (
              <label key={l}>
                <input type="checkbox" checked={item.layers[l as Exclude<Layer, "everything">]} onChange={(e) => run(() => exhibitions.updateItem(item.id, { layers: { [l]: e.target.checked } }))} /> {t(`exhibitions.layer.${l}`)}
              </label>
            ))}
            <label>
              {t("exhibitions.layer.everything")}{" "}
              <select value={item.layers.everything} onChange={(e) => run(() => exhibitions.updateItem(item.id, { layers: { everything: e.target.value as (typeof EVERYTHING)[number] } }))}>
                {EVERYTHING.map((m) => <option key={m} value={m}>{t(`exhibitions.everything.${m}`)}</option>)}
              </select>
            </label>
          </fieldset>
          <p className="small muted">{t("exhibitions.page.previewHelp")}</p>
          {!shown ? (
            <button type="button" onClick={() => setShown(true)}>{t("exhibitions.page.showPreview")}</button>
          ) : (
            <div className="exh-canvas">
              <img
                ref={img}
                src={exhibitions.previewUrl(item.id, item.record ?? "")}
                alt={t("exhibitions.page.previewAlt", { n: fmt.num(item.position) })}
                draggable={false}
                onLoad={(e) => setNatural({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
                onPointerDown={down}
                onPointerMove={drawTo}
                onPointerUp={up}
              />
              {drag && img.current && (
                <span className="exh-drag" style={{ left: `${(drag.x / img.current.naturalWidth) * 100}%`, top: `${(drag.y / img.current.naturalHeight) * 100}%`, width: `${(drag.w / img.current.naturalWidth) * 100}%`, height: `${(drag.h / img.current.naturalHeight) * 100}%` }} />
              )}
              <SuggestionBoxes suggestions={suggestions.data ?? []} natural={natural} />
            </div>
          )}
          {canEdit && (
            <div className="field exh-inline">
              <label htmlFor={`layer-${item.id}`}>{t("exhibitions.page.drawLayer")}</label>
              <select id={`layer-${item.id}`} value={layer} onChange={(e) => setLayer(e.target.value as Layer)}>
                {LAYERS.map((l) => <option key={l} value={l}>{t(`exhibitions.layer.${l}`)}</option>)}
              </select>
            </div>
          )}
          {canEdit && (
            <p>
              <button type="button" disabled={busy} onClick={lookForFaces}>{t("exhibitions.page.suggestFaces")}</button>
              {looking && <span className="small muted" role="status"> {t("exhibitions.page.suggesting")}</span>}
            </p>
          )}
          <SuggestionList
            suggestions={suggestions.data ?? []}
            canEdit={canEdit}
            busy={busy}
            asked={asked}
            onAccept={(id) => decide(() => exhibitions.acceptSuggestion(id))}
            onDiscard={(id) => decide(() => exhibitions.discardSuggestion(id))}
          />
          {item.regions.length > 0 && (
            <ul className="exh-regions small">
              {item.regions.map((r) => (
                <li key={r.id}>
                  {t(`exhibitions.layer.${r.layer}`)}: <span dir="ltr">{r.x},{r.y} {r.w}×{r.h}</span>{r.origin === "suggested" ? ` (${t("exhibitions.page.suggested")})` : ""}
                  {canEdit && <button type="button" className="link" disabled={busy} onClick={() => run(() => exhibitions.removeRegion(r.id))}>{t("exhibitions.page.removeRegion")}</button>}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <div className="exh-steps">
        {inReview && session.can("exhibition.review") && !item.reviewed?.current && <button type="button" className="primary" disabled={busy} onClick={() => run(() => exhibitions.review(item.id))}>{t("exhibitions.review.confirm")}</button>}
        {canEdit && !editing && <button type="button" disabled={busy} onClick={() => setEditing(true)}>{t("exhibitions.page.editCaption")}</button>}
        {canEdit && move(-1) && <button type="button" disabled={busy} onClick={() => run(move(-1)!)}>{t("exhibitions.page.moveUp")}</button>}
        {canEdit && move(1) && <button type="button" disabled={busy} onClick={() => run(move(1)!)}>{t("exhibitions.page.moveDown")}</button>}
        {canEdit && <button type="button" disabled={busy} onClick={() => run(() => exhibitions.removeItem(item.id))}>{t("exhibitions.page.removeItem")}</button>}
      </div>
      <ErrorNote error={error} />
    </li>
  );
}

/** A chart item on the curator's screen: which chart, and its numbers once the review has frozen them. */
function ChartNumbers({ item }: { item: ExhibitionItem }) {
  const { t, i18n } = useTranslation();
  const ar = i18n.language.startsWith("ar");
  const fmt = useFormat();
  const data = item.chartData;
  const title = t(`exhibitions.chart.${item.chart!}`);
  if (!data) return <p className="small"><strong>{title}</strong> · <span className="muted">{t("exhibitions.chart.pending")}</span></p>;
  const label = (b: (typeof data.buckets)[number]) => (b.value === null ? t("exhibitions.chart.unknown") : b.value === "imprecise" ? t("exhibitions.chart.imprecise") : ((ar ? (b.labelAr ?? b.labelEn) : (b.labelEn ?? b.labelAr)) ?? b.value));
  return (
    <table className="small">
      <caption>{title}</caption>
      <thead><tr><th scope="col">{t("exhibitions.chart.category")}</th><th scope="col">{t("exhibitions.chart.count")}</th></tr></thead>
      <tbody>
        {data.buckets.map((b, i) => (
          <tr key={i}><th scope="row" dir="auto">{label(b)}</th><td>{b.count === null ? t("exhibitions.chart.withheld", { k: fmt.num(data.minCount) }) : fmt.num(b.count)}</td></tr>
        ))}
      </tbody>
    </table>
  );
}
