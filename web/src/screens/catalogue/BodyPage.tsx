import { AddToDossier } from "../browse/AddToDossier.tsx";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import type { BodyDetail, MergeResult } from "../../api/types/catalogue.ts";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Notice } from "../../components/Notice.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { catalogue } from "./api.ts";
import { BodyFields, BodyHistory } from "./BodyFields.tsx";
import { BodyNumbers } from "./BodyNumbers.tsx";
import { BodyDocuments } from "./BodyDocuments.tsx";
import { LinksSection } from "./Links.tsx";
import { SensitivityBadge, Thumb, useAct, useTerms, valueText } from "./shared.tsx";

/**
 * One body record: its photographs (blurred; the viewer reveals one with a logged reason), the numbers read
 * on its card and their second-person check, its links to facilities, units and persons with the reasoning,
 * its fields with every change kept (old → new, who, when), and the two corrections of grouping: split off
 * photographs that show someone else, or merge in a record of the same person.
 */
export function BodyPage({ params }: ScreenProps) {
  const { t } = useTranslation();
  const session = useSession();
  const id = params.id!;
  const body = useAsync(() => catalogue.body(id), [id]);
  const history = useAsync(() => catalogue.history(id), [id]);
  const changed = async () => {
    await body.reload();
    await history.reload();
  };
  const b = body.data;
  if (!b) {
    return (
      <section>
        <h1>{t("catalogue.body.title")}</h1>
        <ErrorNote error={body.error} />
        {body.loading && <p className="muted">{t("app.loading")}</p>}
      </section>
    );
  }
  const canEdit = session.can("catalogue.edit") && !b.mergedInto;
  const canGroup = session.can("catalogue.group") && !b.mergedInto;
  return (
    <section aria-labelledby="body-title" data-testid="body-page" data-body-id={b.id}>
      <div className="screen-head">
        <h1 id="body-title">
          {t("catalogue.body.title")} <span dir="ltr">{b.ref}</span>
        </h1>
        <SensitivityBadge value={b.sensitivity} />
        <span className="badge">{t(`catalogue.review.${b.reviewStatus}`)}</span>
        <Link to="/bodies">{t("catalogue.bodies.back")}</Link>
        {session.can("dossier.edit") && !b.mergedInto && <AddToDossier kind="body" refText={b.ref} />}
      </div>
      {b.mergedInto && (
        <Notice kind="warn" title={t("catalogue.body.mergedTitle")}>
          <Link to={`/bodies/${b.mergedInto}`}>{t("catalogue.body.mergedLink")}</Link>
        </Notice>
      )}
      <BodyPhotos body={b} canEdit={canEdit} canGroup={canGroup} onChange={changed} />
      <div className="cat-sections">
        <div>
          <BodyFields body={b} canEdit={canEdit} onSaved={changed} />
        </div>
        <div>
          <LinksSection owner={{ kind: "body", id: b.id }} ownerKind="body" canEdit={canEdit} photos={b.photos.map((p) => p.sha256)} />
          {canGroup && <MergeForm body={b} onMerged={changed} />}
        </div>
      </div>
      <BodyNumbers body={b} canEdit={canEdit} canCheck={session.can("catalogue.check") && !b.mergedInto} onChange={changed} />
      <BodyDocuments body={b} />
      <BodyHistory entries={history.data} error={history.error} />
    </section>
  );
}

/** The photographs, with their role on the card (card, face …) and, for a split, a choice of those to move. */
function BodyPhotos({ body, canEdit, canGroup, onChange }: { body: BodyDetail; canEdit: boolean; canGroup: boolean; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const roles = useTerms("photo_role");
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [reason, setReason] = useState("");
  const [created, setCreated] = useState<BodyDetail | null>(null);
  const { busy, error, act } = useAct();

  const toggle = (sha: string) =>
    setPicked((s) => {
      const n = new Set(s);
      if (n.has(sha)) n.delete(sha);
      else n.add(sha);
      return n;
    });

  const split = async (e: FormEvent) => {
    e.preventDefault();
    let made: BodyDetail | null = null;
    if (await act(async () => (made = (await catalogue.splitBody(body.id, [...picked], reason.trim() || undefined)).created))) {
      setPicked(new Set());
      setReason("");
      setCreated(made);
      await onChange();
    }
  };

  return (
    <section className="card" aria-labelledby="photos-title">
      <h2 id="photos-title">{t("catalogue.body.photos", { n: fmt.num(body.photos.length) })}</h2>
      <p className="muted small">{t("catalogue.blurredNote")}</p>
      <ul className="cat-photos" data-testid="body-photos">
        {body.photos.map((p) => {
          const label = t("catalogue.photoLabel", { n: fmt.num(p.position), role: roles.label(p.role) });
          return (
            <li key={p.sha256}>
              <Thumb sha256={p.sha256} label={label} />
              {canEdit ? (
                <select aria-label={t("catalogue.body.roleOf", { n: fmt.num(p.position) })} value={p.role} disabled={busy} onChange={(e) => void act(() => catalogue.setPhotoRole(body.id, p.sha256, e.target.value).then(onChange))}>
                  {(roles.terms.length ? roles.terms : [{ code: p.role }]).map((r) => (
                    <option key={r.code} value={r.code}>
                      {roles.label(r.code)}
                    </option>
                  ))}
                </select>
              ) : (
                <span>{roles.label(p.role)}</span>
              )}
              <span className="muted">{p.captureTime ? fmt.wallClock(p.captureTime) : t("catalogue.noDate")}</span>
              {canGroup && body.photos.length > 1 && (
                <label>
                  <input type="checkbox" checked={picked.has(p.sha256)} onChange={() => toggle(p.sha256)} /> {t("catalogue.body.pickForSplit")}
                </label>
              )}
            </li>
          );
        })}
      </ul>
      {canGroup && body.photos.length > 1 && (
        <form className="inline-form" onSubmit={(e) => void split(e)}>
          <div className="field">
            <label htmlFor="split-reason">{t("catalogue.body.splitReason")}</label>
            <input id="split-reason" value={reason} maxLength={500} dir="auto" onChange={(e) => setReason(e.target.value)} />
          </div>
          <button type="submit" disabled={busy || picked.size === 0 || picked.size === body.photos.length}>
            {t("catalogue.body.split", { n: fmt.num(picked.size), count: picked.size })}
          </button>
        </form>
      )}
      {created && (
        <Notice kind="ok" title={t("catalogue.body.splitDone")}>
          <Link to={`/bodies/${created.id}`} dir="ltr">
            {created.ref}
          </Link>
        </Notice>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

/** Two records of one person: this one is kept, the other's photographs, numbers and empty fields come in. */
function MergeForm({ body, onMerged }: { body: BodyDetail; onMerged: () => Promise<void> }) {
  const { t } = useTranslation();
  const [other, setOther] = useState("");
  const [reason, setReason] = useState("");
  const [result, setResult] = useState<MergeResult | null>(null);
  const { busy, error, act } = useAct();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    let r: MergeResult | null = null;
    if (await act(async () => (r = await catalogue.mergeBodies(body.id, other.trim(), reason.trim() || undefined)))) {
      setResult(r);
      setOther("");
      setReason("");
      await onMerged();
    }
  };
  return (
    <section className="card" aria-labelledby="merge-title">
      <h2 id="merge-title">{t("catalogue.merge.title")}</h2>
      <p className="muted small">{t("catalogue.merge.help", { ref: body.ref })}</p>
      <form onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor="merge-other">{t("catalogue.merge.other")}</label>
          <input id="merge-other" required dir="ltr" value={other} maxLength={64} placeholder="B-000123" onChange={(e) => setOther(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="merge-reason">{t("catalogue.merge.reason")}</label>
          <input id="merge-reason" dir="auto" value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
        </div>
        <button type="submit" disabled={busy || other.trim() === ""}>
          {t("catalogue.merge.submit")}
        </button>
      </form>
      <ErrorNote error={error} />
      {result && (
        <Notice kind={result.conflicts.length ? "warn" : "ok"} title={t("catalogue.merge.done")}>
          {result.conflicts.length > 0 && (
            <>
              <p>{t("catalogue.merge.conflicts")}</p>
              <ul>
                {result.conflicts.map((c) => (
                  <li key={c.field}>
                    {t(`catalogue.fields.${c.field}`)}: <span dir="auto">{valueText(c.kept)}</span> / <span dir="auto">{valueText(c.absorbed)}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </Notice>
      )}
    </section>
  );
}
