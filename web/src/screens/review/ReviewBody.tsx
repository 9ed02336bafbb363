import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import type { ReviewView, Term } from "../../api/types/review.ts";
import { Link } from "../../app/router.tsx";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Hash } from "../../components/Hash.tsx";
import { Notice } from "../../components/Notice.tsx";
import { Pair } from "../../components/Pair.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { reviewApi } from "./api.ts";
import { draftFrom, draftProblem, emptyDraft, termLabel, toRequest, type ReviewDraft } from "./draft.ts";
import { FindingsEditor } from "./FindingsEditor.tsx";
import { MarksEditor, RecordedMarks } from "./MarksEditor.tsx";
import { PhotoPane } from "./PhotoPane.tsx";
import type { ShownRegion, Tool } from "./RegionCanvas.tsx";

/**
 * One assignment: the body's photographs with the regions drawn on them, the finding form, and submit. A
 * submitted review is signed (its canonical JSON hashed into a custody event) and never changes; what follows
 * is a correction, a new version that says why.
 */
export function ReviewBody({ params }: ScreenProps) {
  const id = params.id ?? "";
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const data = useAsync(async () => {
    const list = await reviewApi.myAssignments(false);
    const asg = list.find((a) => a.id === id);
    if (!asg) return { asg: null, body: null, terms: [] as Term[] };
    const [body, terms] = await Promise.all([reviewApi.body(asg.bodyId), reviewApi.findings()]);
    return { asg, body, terms };
  }, [id]);
  const mine = useAsync(async () => {
    const asg = data.data?.asg;
    if (!asg) return [] as ReviewView[];
    return (await reviewApi.ofBody(asg.bodyId)).reviews.filter((r) => r.content.assignment === asg.id);
  }, [data.data?.asg?.id]);
  const latest = mine.data && mine.data.length > 0 ? mine.data[mine.data.length - 1]! : null;

  const [draft, setDraft] = useState<ReviewDraft>(emptyDraft);
  const [correcting, setCorrecting] = useState(false);
  const [active, setActive] = useState(0);
  const [photo, setPhoto] = useState(0);
  const [tool, setTool] = useState<Tool>("rect");
  const [points, setPoints] = useState<[number, number][]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [signed, setSigned] = useState<ReviewView | null>(null);

  const body = data.data?.body ?? null;
  const terms = data.data?.terms ?? null;
  const sha = body?.photos[photo]?.sha256 ?? null;
  const photoNo = (s: string) => (body?.photos.findIndex((p) => p.sha256 === s) ?? -1) + 1;
  const shown: ShownRegion[] = useMemo(
    () =>
      draft.findings.flatMap((f, i) =>
        f.regions.filter((r) => r.photo === sha).map((region) => ({ region, finding: i, active: i === active, label: f.code ? termLabel(terms, f.code, lang) : t("review.activeFinding", { n: fmt.num(i + 1) }) })),
      ),
    [draft, sha, active, terms, lang, t, fmt],
  );
  const addRegion = (r: ShownRegion["region"]) => {
    const i = Math.min(active, draft.findings.length - 1);
    setDraft({ ...draft, findings: draft.findings.map((f, j) => (j === i ? { ...f, regions: [...f.regions, r] } : f)) });
  };

  const editing = !latest || correcting;
  const problem = draftProblem(draft, Boolean(latest));

  const submit = async () => {
    if (!data.data?.asg) return;
    setBusy(true);
    setError(null);
    try {
      const r = await reviewApi.submit(data.data.asg.id, toRequest(draft, Boolean(latest)));
      setSigned(r);
      setCorrecting(false);
      await mine.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="review-body" aria-labelledby="review-body-title">
      <p>
        <Link to="/review">{t("review.backToQueue")}</Link>
      </p>
      <div className="screen-head">
        <h1 id="review-body-title">{body ? t("review.bodyTitle", { ref: body.ref }) : t("review.reviewTitle")}</h1>
      </div>
      <ErrorNote error={data.error} />
      {data.data && !data.data.asg && <Notice kind="error">{t("review.notYours")}</Notice>}
      {body && data.data?.asg && (
        <>
          <dl className="pairs compact-pairs">
            <Pair term={t("review.branch")}>{body.branchNo ?? "—"}</Pair>
            <Pair term={t("review.photoDate")}>{fmt.wallDate(body.photoDate)}</Pair>
            <Pair term={t("review.kind")}>{data.data.asg.double ? t("review.double") : t("review.single")}</Pair>
            <Pair term={t("review.status")}>{t(`review.itemStatus.${data.data.asg.itemStatus}`, { defaultValue: data.data.asg.itemStatus })}</Pair>
          </dl>
          {data.data.asg.double && <Notice kind="info">{t("review.blindNote")}</Notice>}
          {signed && (
            <Notice kind="ok" title={t("review.signedTitle")}>
              <p data-testid="review-signed">{t("review.signedNote", { version: fmt.num(signed.content.version), seq: fmt.num(signed.eventSeq) })}</p>
              <Hash value={signed.sha256} />
            </Notice>
          )}
          <div className="review-layout">
            <PhotoPane
              body={body}
              photo={photo}
              onPhoto={(i) => {
                setPhoto(i);
                setPoints([]);
              }}
              tool={editing ? tool : "pan"}
              onTool={setTool}
              regions={editing ? shown : latestRegions(latest, sha, terms, lang)}
              points={points}
              onPoints={setPoints}
              onRect={(r) => sha && addRegion({ photo: sha, shape: "rect", ...r })}
              onClosePolygon={() => {
                if (sha && points.length >= 3) addRegion({ photo: sha, shape: "polygon", points });
                setPoints([]);
              }}
            />
            <div className="review-form">
              {latest && !correcting && <Submitted review={latest} terms={terms} photoNo={photoNo} />}
              {latest && !correcting && (
                <button
                  type="button"
                  onClick={() => {
                    setDraft(draftFrom(latest.content));
                    setActive(0);
                    setCorrecting(true);
                    setSigned(null);
                  }}
                >
                  {t("review.correct")}
                </button>
              )}
              {editing && (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    void submit();
                  }}
                >
                  <FindingsEditor draft={draft} onDraft={setDraft} terms={terms} active={Math.min(active, draft.findings.length - 1)} onActive={setActive} photo={sha} photoCount={photoNo} />
                  <MarksEditor draft={draft} onDraft={setDraft} />
                  {latest && (
                    <div className="field">
                      <label htmlFor="review-correction">{t("review.correctionReason")}</label>
                      <textarea id="review-correction" rows={2} required maxLength={4000} dir="auto" value={draft.correction} onChange={(e) => setDraft({ ...draft, correction: e.target.value })} />
                    </div>
                  )}
                  <p className="muted small">{t("review.signExplain")}</p>
                  {problem && <p className="field-problem">{t(problem)}</p>}
                  <ErrorNote error={error} />
                  <div className="actions">
                    <button type="submit" className="primary" disabled={busy || problem !== null} data-testid="submit-review">
                      {latest ? t("review.submitCorrection") : t("review.submit")}
                    </button>
                    {correcting && (
                      <button type="button" onClick={() => setCorrecting(false)}>
                        {t("common.cancel")}
                      </button>
                    )}
                  </div>
                </form>
              )}
            </div>
          </div>
        </>
      )}
    </section>
  );
}

function latestRegions(r: ReviewView | null, sha: string | null, terms: Term[] | null, lang: string): ShownRegion[] {
  if (!r) return [];
  return r.content.findings.flatMap((f, i) => (f.regions ?? []).filter((x) => x.photo === sha).map((region) => ({ region, finding: i, active: false, label: termLabel(terms, f.code, lang) })));
}

/** The review as signed: what was recorded, its version and hash. */
function Submitted({ review, terms, photoNo }: { review: ReviewView; terms: Term[] | null; photoNo: (s: string) => number }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const c = review.content;
  return (
    <section className="card" aria-labelledby="submitted-title" data-testid="review-recorded">
      <h2 id="submitted-title">{t("review.submittedTitle", { version: fmt.num(c.version) })}</h2>
      <dl className="pairs">
        <Pair term={t("review.submittedAt")}>{fmt.dateTime(c.submittedAt)}</Pair>
        <Pair term={t("review.signature")}>
          <Hash value={review.sha256} short />
        </Pair>
        {c.correction && <Pair term={t("review.correctionReason")}>{c.correction}</Pair>}
      </dl>
      <ul className="plain recorded-findings">
        {c.findings.map((f) => (
          <li key={f.code} data-code={f.code}>
            <strong>{termLabel(terms, f.code, lang)}</strong>{t("review.sep")}{t(`review.confidences.${f.confidence}`)}
            {t("review.sep")}
            {t("review.regionsSummary", { n: fmt.num(f.regions?.length ?? 0), count: f.regions?.length ?? 0, photos: [...new Set((f.regions ?? []).map((r) => fmt.num(photoNo(r.photo))))].join(t("review.sep")) || "—" })}
            {f.note && <p dir="auto">{f.note}</p>}
          </li>
        ))}
      </ul>
      {c.causes.length > 0 && (
        <p>
          {t("review.causes")}: {c.causes.map((x) => `${t(`review.causeCodes.${x.code}`)} (${t(`review.confidences.${x.confidence}`)})`).join(t("review.sep"))}
        </p>
      )}
      <RecordedMarks marks={c.marks ?? []} clothing={c.clothing} />
      {c.notes && (
        <p dir="auto">
          {t("review.notes")}: {c.notes}
        </p>
      )}
    </section>
  );
}
