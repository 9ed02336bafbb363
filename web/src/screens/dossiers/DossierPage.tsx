import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { EXHIBIT_KINDS, type ExhibitKind, type ExhibitView } from "../../api/types/dossiers.ts";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { useAct } from "../catalogue/shared.tsx";
import { dossiers } from "./api.ts";
import { PackageForm } from "./PackageForm.tsx";
import { Packages } from "./Packages.tsx";
import "./dossiers.css";

/**
 * One dossier: its draft exhibits with the reasoning for each (withdrawn ones struck through, their numbers kept),
 * adding and withdrawing exhibits, freezing the draft as a version, the versions, and packages of a version.
 */
export function DossierPage({ params }: ScreenProps) {
  const id = params.id ?? "";
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const canEdit = session.can("dossier.edit");
  const view = useAsync(() => dossiers.show(id), [id]);
  const versions = useAsync(() => dossiers.versions(id), [id]);
  const packages = useAsync(async () => (session.can("package.export") ? await dossiers.packages(id) : null), [id]);
  const reload = async () => {
    await Promise.all([view.reload(), versions.reload()]);
  };
  const d = view.data;

  return (
    <section aria-labelledby="dossier-title">
      <div className="screen-head">
        <h1 id="dossier-title" dir="auto">
          {d?.dossier.name ?? t("dossiers.page.title")}
        </h1>
        <Link to="/dossiers">{t("dossiers.page.back")}</Link>
      </div>
      <ErrorNote error={view.error} />
      {view.loading && !d && <p className="muted">{t("app.loading")}</p>}
      {d?.dossier.description && (
        <p className="dos-description" dir="auto">
          {d.dossier.description}
        </p>
      )}
      {d && (
        <>
          <h2>{t("dossiers.exhibits.title")}</h2>
          {d.exhibits.length === 0 ? <p>{t("dossiers.exhibits.empty")}</p> : <Exhibits id={id} exhibits={d.exhibits} labels={d.labels ?? {}} canEdit={canEdit} onChange={reload} />}
          {canEdit && <AddExhibit id={id} onAdded={reload} />}
          {canEdit && <Freeze id={id} changed={d.summary.draftChanged || d.summary.frozenVersions === 0} onFrozen={reload} />}
        </>
      )}
      <h2>{t("dossiers.versions.title")}</h2>
      <ErrorNote error={versions.error} />
      {versions.data && versions.data.versions.length === 0 && <p>{t("dossiers.versions.empty")}</p>}
      {versions.data && versions.data.versions.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="dossier-versions">
            <caption className="sr-only">{t("dossiers.versions.title")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("dossiers.versions.version")}</th>
                <th scope="col">{t("dossiers.versions.frozenAt")}</th>
                <th scope="col">{t("dossiers.versions.exhibits")}</th>
                <th scope="col">{t("dossiers.versions.note")}</th>
                <th scope="col">{t("dossiers.versions.sha256")}</th>
              </tr>
            </thead>
            <tbody>
              {versions.data.versions.map((v) => (
                <tr key={v.version}>
                  <th scope="row">{fmt.num(v.version)}</th>
                  <td>{fmt.dateTime(v.frozenAt)}</td>
                  <td>{fmt.num(v.exhibits)}</td>
                  <td dir="auto">{v.note ?? "—"}</td>
                  <td>
                    <code dir="ltr" title={v.sha256}>
                      {v.sha256.slice(0, 16)}…
                    </code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {versions.data && versions.data.versions.length > 0 && session.can("package.export") && (
        <PackageForm id={id} versions={versions.data.versions.map((v) => v.version)} onBuilt={() => void packages.reload()} />
      )}
      {session.can("package.export") && <Packages list={packages.data} error={packages.error} />}
    </section>
  );
}

/**
 * What an exhibit selects, as the server labelled it for this reader: a body by its reference (B-000123) and an
 * entity by its name, each linking to its page; a review by the body it is of; a photo by its hash's start. A
 * target the reader may not see has no label and shows its bare id.
 */
function ExhibitRecord({ kind, refId, label }: { kind: ExhibitKind; refId: string; label: { ar: string; en: string } | undefined }) {
  const { i18n } = useTranslation();
  const text = label ? (i18n.language === "ar" ? label.ar : label.en) : refId;
  if (kind === "photo") return <Link to={`/photo/${refId}`}>{`${refId.slice(0, 12)}…`}</Link>;
  if (!label) return <span dir="ltr">{refId}</span>;
  if (kind === "body") return <Link to={`/bodies/${refId}`}>{text}</Link>;
  if (kind === "facility" || kind === "unit" || kind === "person") return <Link to={`/entities/${refId}`}><bdi>{text}</bdi></Link>;
  return <bdi>{text}</bdi>;
}

function Exhibits({ id, exhibits, labels, canEdit, onChange }: { id: string; exhibits: ExhibitView[]; labels: Record<string, { ar: string; en: string }>; canEdit: boolean; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const [withdrawing, setWithdrawing] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const { busy, error, act } = useAct();
  const withdraw = async (e: FormEvent, number: string) => {
    e.preventDefault();
    if (
      await act(async () => {
        await dossiers.withdraw(id, number, reason.trim());
        await onChange();
      })
    ) {
      setWithdrawing(null);
      setReason("");
    }
  };
  return (
    <div className="table-wrap">
      <table className="table" data-testid="dossier-exhibits">
        <caption className="sr-only">{t("dossiers.exhibits.title")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("dossiers.exhibits.number")}</th>
            <th scope="col">{t("dossiers.exhibits.kind")}</th>
            <th scope="col">{t("dossiers.exhibits.ref")}</th>
            <th scope="col">{t("dossiers.exhibits.reasoning")}</th>
            {canEdit && <th scope="col">{t("dossiers.exhibits.actions")}</th>}
          </tr>
        </thead>
        <tbody>
          {exhibits.map((x) => {
            const gone = x.status === "withdrawn";
            return (
              <tr key={x.number} className={gone ? "dos-withdrawn" : undefined}>
                <th scope="row" dir="ltr">
                  {gone ? <del>{x.number}</del> : x.number}
                </th>
                <td>{t(`dossiers.kinds.${x.kind}`)}</td>
                <td>
                  <ExhibitRecord kind={x.kind} refId={x.ref} label={labels[x.ref]} />
                </td>
                <td dir="auto">
                  {gone ? <del>{x.reasoning}</del> : x.reasoning}
                  {gone && x.withdrawn && (
                    <span className="dos-why">
                      {t("dossiers.exhibits.withdrawnBecause")} <span dir="auto">{x.withdrawn.reason}</span>
                    </span>
                  )}
                </td>
                {canEdit && (
                  <td>
                    {!gone && withdrawing !== x.number && (
                      <button type="button" onClick={() => setWithdrawing(x.number)}>
                        {t("dossiers.exhibits.withdraw")}
                      </button>
                    )}
                    {withdrawing === x.number && (
                      <form onSubmit={(e) => void withdraw(e, x.number)} className="dos-inline">
                        <label htmlFor={`dos-reason-${x.number}`}>{t("dossiers.exhibits.withdrawReason")}</label>
                        <input id={`dos-reason-${x.number}`} dir="auto" required maxLength={2000} value={reason} onChange={(e) => setReason(e.target.value)} />
                        <button type="submit" disabled={busy || !reason.trim()}>
                          {t("dossiers.exhibits.withdrawConfirm")}
                        </button>
                        <button type="button" onClick={() => setWithdrawing(null)}>
                          {t("dossiers.cancel")}
                        </button>
                        <ErrorNote error={error} />
                      </form>
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function AddExhibit({ id, onAdded }: { id: string; onAdded: () => Promise<void> }) {
  const { t } = useTranslation();
  const [kind, setKind] = useState<ExhibitKind>("body");
  const [ref, setRef] = useState("");
  const [reasoning, setReasoning] = useState("");
  const { busy, error, act } = useAct();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (
      await act(async () => {
        await dossiers.addExhibit(id, kind, ref.trim(), reasoning.trim());
        await onAdded();
      })
    ) {
      setRef("");
      setReasoning("");
    }
  };
  return (
    <form className="dos-form" onSubmit={(e) => void submit(e)} data-testid="exhibit-add">
      <h3>{t("dossiers.add.title")}</h3>
      <div className="dos-grid">
        <div className="field">
          <label htmlFor="dos-kind">{t("dossiers.exhibits.kind")}</label>
          <select id="dos-kind" value={kind} onChange={(e) => setKind(e.target.value as ExhibitKind)}>
            {EXHIBIT_KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`dossiers.kinds.${k}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="dos-ref">{t("dossiers.exhibits.ref")}</label>
          <input id="dos-ref" dir="ltr" required maxLength={200} value={ref} onChange={(e) => setRef(e.target.value)} aria-describedby="dos-ref-help" />
          <span id="dos-ref-help" className="muted small">
            {t(`dossiers.add.refHelp.${kind}`)}
          </span>
        </div>
      </div>
      <div className="field">
        <label htmlFor="dos-reasoning">{t("dossiers.exhibits.reasoning")}</label>
        <textarea id="dos-reasoning" dir="auto" required maxLength={8000} rows={3} value={reasoning} onChange={(e) => setReasoning(e.target.value)} />
      </div>
      <ErrorNote error={error} />
      <button type="submit" className="primary" disabled={busy || !ref.trim() || !reasoning.trim()}>
        {t("dossiers.add.submit")}
      </button>
    </form>
  );
}

function Freeze({ id, changed, onFrozen }: { id: string; changed: boolean; onFrozen: () => Promise<void> }) {
  const { t } = useTranslation();
  const [note, setNote] = useState("");
  const { busy, error, act } = useAct();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (
      await act(async () => {
        await dossiers.freeze(id, note.trim());
        await onFrozen();
      })
    )
      setNote("");
  };
  return (
    <form className="dos-form" onSubmit={(e) => void submit(e)} data-testid="dossier-freeze">
      <h3>{t("dossiers.freeze.title")}</h3>
      <p className="muted small">{t(changed ? "dossiers.freeze.help" : "dossiers.freeze.unchanged")}</p>
      <div className="field">
        <label htmlFor="dos-note">{t("dossiers.freeze.note")}</label>
        <input id="dos-note" dir="auto" maxLength={2000} value={note} onChange={(e) => setNote(e.target.value)} />
      </div>
      <ErrorNote error={error} />
      <button type="submit" className="primary" disabled={busy || !changed}>
        {t("dossiers.freeze.submit")}
      </button>
    </form>
  );
}
