import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { NUMBER_ROLES, type BodyDetail, type BodyNumber, type NumberRole } from "../../api/types/catalogue.ts";
import { useFormat } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { catalogue } from "./api.ts";
import { Thumb, useAct } from "./shared.tsx";
import { Person } from "../../components/Person.tsx";

/**
 * The numbers on a body's card (detainee, branch, examiner). Each was read by the card reader (OCR, with its
 * confidence) or typed by a person, and waits for a second person's check: they confirm it, or type what they
 * read instead (the old reading is retired, never overwritten). A number entered in error is withdrawn with a
 * reason and stays on record.
 */
type Pending = { id: string; kind: "correct" | "retire"; value: string } | null;

export function BodyNumbers({ body, canEdit, canCheck, onChange }: { body: BodyDetail; canEdit: boolean; canCheck: boolean; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [pending, setPending] = useState<Pending>(null);
  const [role, setRole] = useState<NumberRole>("detainee");
  const [value, setValue] = useState("");
  const [photo, setPhoto] = useState("");
  const { busy, error, act } = useAct();
  const numbers = [...body.numbers].sort((a, b) => Number(a.retired !== null) - Number(b.retired !== null) || NUMBER_ROLES.indexOf(a.role) - NUMBER_ROLES.indexOf(b.role));
  const positionOf = (sha: string) => body.photos.find((p) => p.sha256 === sha)?.position ?? 0;

  const run = async (f: () => Promise<unknown>) => {
    if (await act(f)) {
      setPending(null);
      await onChange();
    }
  };
  const finish = (e: FormEvent) => {
    e.preventDefault();
    if (!pending || pending.value.trim() === "") return;
    const p = pending;
    void run(() => (p.kind === "correct" ? catalogue.checkNumber(p.id, false, p.value.trim()) : catalogue.retireNumber(p.id, p.value.trim())));
  };
  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (await act(() => catalogue.addNumber(body.id, role, value.trim(), photo || null))) {
      setValue("");
      await onChange();
    }
  };

  const status = (n: BodyNumber) =>
    n.retired ? (
      <span>
        <span className="badge">{t("catalogue.numbers.retired")}</span> <span dir="auto">{n.retired.reason}</span>
      </span>
    ) : n.checkedBy ? (
      <span>
        <span className="badge badge-ok">{t("catalogue.numbers.checked")}</span>
        <span className="cat-who muted small">
          <Person id={n.checkedBy} />
        </span>
      </span>
    ) : (
      <span className="badge badge-warn">{t("catalogue.numbers.unchecked")}</span>
    );

  return (
    <section className="card" aria-labelledby="numbers-title">
      <h2 id="numbers-title">{t("catalogue.numbers.title")}</h2>
      <p className="muted small">{t("catalogue.numbers.help")}</p>
      <ErrorNote error={error} />
      {numbers.length === 0 ? (
        <p className="muted">{t("catalogue.numbers.none")}</p>
      ) : (
        <div className="table-wrap">
          <table className="table compact" data-testid="body-numbers">
            <caption className="sr-only">{t("catalogue.numbers.title")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("catalogue.numbers.role")}</th>
                <th scope="col">{t("catalogue.numbers.value")}</th>
                <th scope="col">{t("catalogue.numbers.how")}</th>
                <th scope="col">{t("catalogue.numbers.photo")}</th>
                <th scope="col">{t("catalogue.numbers.status")}</th>
                {(canCheck || canEdit) && <th scope="col">{t("catalogue.actions")}</th>}
              </tr>
            </thead>
            <tbody>
              {numbers.map((n) => (
                <tr key={n.id} data-number-id={n.id} className={n.retired ? "muted" : undefined}>
                  <th scope="row">{t(`catalogue.numbers.roles.${n.role}`)}</th>
                  <td>
                    <bdi className="hash">{n.value}</bdi>
                  </td>
                  <td>
                    {n.method === "ocr"
                      ? t("catalogue.numbers.ocr", { confidence: n.confidence === null ? "?" : fmt.percent(n.confidence) })
                      : (
                        <>
                          {t("catalogue.numbers.typed")} <Person id={n.enteredBy} />
                        </>
                      )}
                    <div className="muted small">{fmt.dateTime(n.enteredAt)}</div>
                  </td>
                  <td>{n.sourceSha256 ? <Thumb sha256={n.sourceSha256} size={56} label={t("catalogue.photoN", { n: fmt.num(positionOf(n.sourceSha256)) })} /> : "—"}</td>
                  <td>{status(n)}</td>
                  {(canCheck || canEdit) && (
                    <td className="row-actions">
                      {!n.retired && pending?.id === n.id ? (
                        <form onSubmit={finish}>
                          <label htmlFor={`pending-${n.id}`}>{pending.kind === "correct" ? t("catalogue.numbers.whatYouRead") : t("catalogue.numbers.retireReason")}</label>
                          <input id={`pending-${n.id}`} dir="auto" required value={pending.value} maxLength={pending.kind === "correct" ? 40 : 500} onChange={(e) => setPending({ ...pending, value: e.target.value })} />
                          <button type="submit" disabled={busy}>
                            {t("catalogue.numbers.send")}
                          </button>
                          <button type="button" onClick={() => setPending(null)}>
                            {t("common.cancel")}
                          </button>
                        </form>
                      ) : (
                        !n.retired && (
                          <>
                            {canCheck && !n.checkedBy && (
                              <>
                                <button type="button" disabled={busy} onClick={() => void run(() => catalogue.checkNumber(n.id, true))}>
                                  {t("catalogue.numbers.confirm")}
                                </button>
                                <button type="button" disabled={busy} onClick={() => setPending({ id: n.id, kind: "correct", value: "" })}>
                                  {t("catalogue.numbers.correct")}
                                </button>
                              </>
                            )}
                            {canEdit && (
                              <button type="button" disabled={busy} onClick={() => setPending({ id: n.id, kind: "retire", value: "" })}>
                                {t("catalogue.numbers.retire")}
                              </button>
                            )}
                          </>
                        )
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Readings body={body} />
      {canEdit && (
        <form className="inline-form" onSubmit={(e) => void add(e)}>
          <h3>{t("catalogue.numbers.add")}</h3>
          <div className="field">
            <label htmlFor="number-role">{t("catalogue.numbers.role")}</label>
            <select id="number-role" value={role} onChange={(e) => setRole(NUMBER_ROLES.find((r) => r === e.target.value) ?? "detainee")}>
              {NUMBER_ROLES.map((r) => (
                <option key={r} value={r}>
                  {t(`catalogue.numbers.roles.${r}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="number-value">{t("catalogue.numbers.value")}</label>
            <input id="number-value" dir="auto" required maxLength={40} value={value} onChange={(e) => setValue(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="number-photo">{t("catalogue.numbers.photo")}</label>
            <select id="number-photo" value={photo} onChange={(e) => setPhoto(e.target.value)}>
              <option value="">{t("catalogue.numbers.noPhoto")}</option>
              {body.photos.map((p) => (
                <option key={p.sha256} value={p.sha256}>
                  {t("catalogue.photoN", { n: fmt.num(p.position) })}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" disabled={busy || value.trim() === ""}>
            {t("catalogue.numbers.addButton")}
          </button>
        </form>
      )}
    </section>
  );
}

/** What the card reader read on the card photograph, run by run: to compare with the numbers above. */
function Readings({ body }: { body: BodyDetail }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const card = body.photos.find((p) => p.role === "card") ?? null;
  const [open, setOpen] = useState(false);
  const readings = useAsync(() => (open && card ? catalogue.readings(card.sha256) : Promise.resolve(null)), [open, card?.sha256]);
  if (!card) return null;
  return (
    <div className="actions">
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {t("catalogue.numbers.readings")}
      </button>
      {open && <ErrorNote error={readings.error} />}
      {open && readings.data && (
        <ul className="plain" data-testid="readings">
          {readings.data.length === 0 && <li className="muted">{t("catalogue.numbers.noReadings")}</li>}
          {readings.data.map((r, i) => (
            <li key={i}>
              {t(`catalogue.numbers.roles.${r.role}`)}: <bdi className="hash">{r.value}</bdi> · {r.confidence === null ? "—" : fmt.percent(r.confidence)} · <span className="muted small">{fmt.dateTime(r.readAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
