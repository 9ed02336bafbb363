import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Person } from "../../components/Person.tsx";
import { Link } from "../../app/router.tsx";
import type { SampleView } from "../../api/types/review.ts";
import { navigate } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import { useSession } from "../../app/session.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Hash } from "../../components/Hash.tsx";
import { Notice } from "../../components/Notice.tsx";
import { Pair } from "../../components/Pair.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { reviewApi } from "./api.ts";

/**
 * Samples for investigators: draw a reproducible sample of unreviewed bodies (a seed anyone can repeat, a size,
 * the share examined blind by two reviewers), stratified by branch and month; then deal it to reviewers.
 */
export function Samples(_props: ScreenProps) {
  const { t } = useTranslation();
  const [seed, setSeed] = useState("");
  const [size, setSize] = useState("20");
  const [share, setShare] = useState("20");
  const [open, setOpen] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <section aria-labelledby="samples-title">
      <div className="screen-head">
        <h1 id="samples-title">{t("review.samplesTitle")}</h1>
      </div>
      <p className="muted">{t("review.samplesIntro")}</p>
      <form
        className="card inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          reviewApi
            .drawSample({ seed: seed.trim(), size: Number(size), doubleShare: Number(share) / 100 })
            .then((s) => navigate(`/review/samples/${encodeURIComponent(s.id)}`))
            .catch(setError)
            .finally(() => setBusy(false));
        }}
      >
        <h2>{t("review.drawTitle")}</h2>
        <div className="field">
          <label htmlFor="sample-seed">{t("review.seed")}</label>
          <input id="sample-seed" dir="ltr" required maxLength={200} value={seed} onChange={(e) => setSeed(e.target.value)} aria-describedby="seed-help" />
        </div>
        <div className="field">
          <label htmlFor="sample-size">{t("review.size")}</label>
          <input id="sample-size" type="number" min={1} max={1000000} required value={size} onChange={(e) => setSize(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="sample-share">{t("review.doubleShare")}</label>
          <input id="sample-share" type="number" min={0} max={100} step={1} required value={share} onChange={(e) => setShare(e.target.value)} />
        </div>
        <button type="submit" className="primary" disabled={busy || !seed.trim()}>
          {t("review.draw")}
        </button>
        <p id="seed-help" className="muted small">
          {t("review.seedHelp")}
        </p>
      </form>
      <ErrorNote error={error} />
      <form
        className="card inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (open.trim()) navigate(`/review/samples/${encodeURIComponent(open.trim())}`);
        }}
      >
        <div className="field">
          <label htmlFor="sample-open">{t("review.openSample")}</label>
          <input id="sample-open" dir="ltr" value={open} onChange={(e) => setOpen(e.target.value)} />
        </div>
        <button type="submit">{t("review.open")}</button>
      </form>
    </section>
  );
}

export function SampleDetailScreen({ params }: ScreenProps) {
  const id = params.id ?? "";
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const sample = useAsync(() => reviewApi.sample(id), [id]);
  const s = sample.data;
  return (
    <section aria-labelledby="sample-title">
      <div className="screen-head">
        <h1 id="sample-title">{t("review.sampleTitle")}</h1>
      </div>
      <ErrorNote error={sample.error} />
      {s && (
        <>
          <SampleFacts s={s} />
          <h2>{t("review.strata")}</h2>
          <div className="table-wrap">
            <table className="table compact" data-testid="strata">
              <caption className="sr-only">{t("review.strata")}</caption>
              <thead>
                <tr>
                  <th scope="col">{t("review.branch")}</th>
                  <th scope="col">{t("review.month")}</th>
                  <th scope="col">{t("review.population")}</th>
                  <th scope="col">{t("review.allocated")}</th>
                </tr>
              </thead>
              <tbody>
                {s.strata.map((x) => (
                  <tr key={x.key}>
                    <td>{x.branch ?? t("review.unknown")}</td>
                    <td>{x.period ?? t("review.unknown")}</td>
                    <td>{fmt.num(x.population)}</td>
                    <td>{fmt.num(x.allocated)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {session.can("review.assign") && <AssignForm id={s.id} unassigned={s.items.filter((i) => i.status === "sampled").length} onDone={sample.reload} />}
          <h2>{t("review.items")}</h2>
          <div className="table-wrap">
            <table className="table compact" data-testid="sample-items">
              <caption className="sr-only">{t("review.items")}</caption>
              <thead>
                <tr>
                  <th scope="col">{t("review.body")}</th>
                  <th scope="col">{t("review.stratum")}</th>
                  <th scope="col">{t("review.kind")}</th>
                  <th scope="col">{t("review.status")}</th>
                </tr>
              </thead>
              <tbody>
                {s.items.map((i) => (
                  <tr key={i.id}>
                    <td>
                      <Link to={`/bodies/${i.bodyId}`} dir="ltr">
                        {i.bodyRef}
                      </Link>
                    </td>
                    <td dir="ltr">{i.stratum}</td>
                    <td>{i.double ? t("review.double") : t("review.single")}</td>
                    <td>{t(`review.itemStatus.${i.status}`, { defaultValue: i.status })}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

function SampleFacts({ s }: { s: SampleView }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <dl className="pairs">
      <Pair term={t("review.seed")}>
        <code dir="ltr">{s.seed}</code>
      </Pair>
      <Pair term={t("review.size")}>{fmt.num(s.size)}</Pair>
      <Pair term={t("review.population")}>{fmt.num(s.population)}</Pair>
      <Pair term={t("review.doubles")}>{t("review.doublesValue", { n: fmt.num(s.doubles), share: fmt.percent(s.doubleShare) })}</Pair>
      <Pair term={t("review.frameHash")}>
        <Hash value={s.populationSha256} short />
      </Pair>
      <Pair term={t("review.drawn")}>{fmt.dateTime(s.drawnAt)} · <Person id={s.drawnBy} /></Pair>
    </dl>
  );
}

function AssignForm({ id, unassigned, onDone }: { id: string; unassigned: number; onDone: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<Record<string, number> | null>(null);
  const reviewers = text.split(/[\s,،;]+/).map((x) => x.trim()).filter(Boolean);
  return (
    <form
      className="card"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        reviewApi
          .assign(id, reviewers)
          .then(async (r) => {
            setDone(r.perReviewer);
            await onDone();
          })
          .catch(setError)
          .finally(() => setBusy(false));
      }}
    >
      <h2>{t("review.assignTitle")}</h2>
      <p className="muted small">{t("review.assignHelp", { n: fmt.num(unassigned), count: unassigned })}</p>
      <div className="field">
        <label htmlFor="assign-reviewers">{t("review.reviewers")}</label>
        <textarea id="assign-reviewers" dir="ltr" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
      </div>
      <ErrorNote error={error} />
      {done && (
        <Notice kind="ok" title={t("review.assigned")}>
          <ul className="plain">
            {Object.entries(done).map(([r, n]) => (
              <li key={r}>
                <Person id={r} /> {t("review.assignedN", { n: fmt.num(n), count: n })}
              </li>
            ))}
          </ul>
        </Notice>
      )}
      <button type="submit" className="primary" disabled={busy || reviewers.length === 0 || unassigned === 0}>
        {t("review.assign")}
      </button>
    </form>
  );
}
