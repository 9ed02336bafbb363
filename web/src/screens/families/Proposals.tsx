import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import type { ReportProposalView } from "../../api/types/families.ts";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Person } from "../../components/Person.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { useTerms } from "../catalogue/shared.tsx";
import { families } from "./api.ts";
import { useAct } from "./shared.tsx";
import "./families.css";

/**
 * What families sent from the portal, waiting for a caseworker: new reports (not matched before they are
 * accepted) and what a family added or corrected later. Each shows what would change; accepting applies it,
 * refusing needs a reason the family reads as written.
 */
export function Proposals(_props: ScreenProps) {
  const { t } = useTranslation();
  const list = useAsync(() => families.proposals("proposed"), []);
  return (
    <section aria-labelledby="fam-proposals-title">
      <div className="screen-head">
        <h1 id="fam-proposals-title">{t("families.proposals.title")}</h1>
      </div>
      <p className="muted small">{t("families.proposals.intro")}</p>
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && <p data-testid="proposals-none">{t("families.proposals.none")}</p>}
      <ul className="fam-plain" data-testid="proposals">
        {list.data?.map((p) => (
          <Proposal key={p.id} p={p} onChange={list.reload} />
        ))}
      </ul>
    </section>
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function Proposal({ p, onChange }: { p: ReportProposalView; onChange: () => Promise<void> }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const markTypes = useTerms("mark_type");
  const regions = useTerms("body_region");
  const [refusing, setRefusing] = useState(false);
  const [reason, setReason] = useState("");
  const { busy, error, run } = useAct(onChange);
  const id = `proposal-${p.id}`;
  const label = (k: string) => t([`families.fields.${k}`, `families.portal.fieldNames.${k}`], { defaultValue: k });
  /** One value in words: a mark by its kind and place, a number by its role, a place with when and who. */
  const item = (v: unknown): string => {
    if (v === null || v === undefined || v === "") return "—";
    if (typeof v !== "object") return String(v);
    const o = v as Record<string, string | null | undefined>;
    if ("type" in o) return [markTypes.label(o.type ?? ""), o.region ? regions.label(o.region) : null, o.description].filter(Boolean).join(" · ");
    if ("role" in o) return `${t(`families.portal.numberRoles.${o.role}`, { defaultValue: o.role ?? "" })}: ${o.value}`;
    if ("place" in o) return [o.place, o.when, o.witness].filter(Boolean).join(" · ");
    return JSON.stringify(v);
  };
  const refuse = (e: FormEvent) => {
    e.preventDefault();
    void run(() => families.refuseProposal(p.id, reason.trim()));
  };
  return (
    <li className="card" data-testid="proposal" data-kind={p.kind}>
      <h2 className="small-heading">
        {t(`families.proposals.kind.${p.kind}`)} · <Link to={`/families/reports/${p.reportId}`}>{p.reportRef}</Link>
      </h2>
      <p className="muted small">
        {t("families.proposals.sentBy")} <Person id={p.proposedBy} /> · {t("families.proposals.sentAt")} {fmt.dateTime(p.createdAt)}
      </p>
      {p.kind === "change" && (
        <table className="fam-proposal-table">
          <thead>
            <tr>
              <th scope="col">{t("families.proposals.field")}</th>
              <th scope="col">{t("families.proposals.value")}</th>
              <th scope="col">{t("families.proposals.current")}</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(p.fields).map(([k, v]) => {
              const now = p.current[k];
              // for a list, what the family adds is what the report does not hold yet
              const added = Array.isArray(v) ? v.filter((x) => !(Array.isArray(now) && now.some((y) => same(x, y)))) : null;
              return (
                <tr key={k}>
                  <th scope="row">{label(k)}</th>
                  <td dir="auto">{added ? added.map((x, i) => <div key={i}>{item(x)}</div>) : item(v)}</td>
                  <td dir="auto" className="muted">
                    {Array.isArray(now) ? (now.length ? now.map((x, i) => <div key={i}>{item(x)}</div>) : "—") : item(now)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <ErrorNote error={error} />
      {!refusing ? (
        <div className="actions">
          <button type="button" disabled={busy} data-testid="accept-proposal" onClick={() => void run(() => families.acceptProposal(p.id))}>
            {t("families.proposals.accept")}
          </button>
          <button type="button" className="link-button" onClick={() => setRefusing(true)}>
            {t("families.proposals.refuse")}
          </button>
        </div>
      ) : (
        <form onSubmit={refuse} data-testid="refuse-proposal">
          <div className="field">
            <label htmlFor={`${id}-reason`}>{t("families.proposals.reason")}</label>
            <textarea id={`${id}-reason`} dir="auto" rows={3} required value={reason} onChange={(e) => setReason(e.target.value)} />
          </div>
          <button type="submit" disabled={busy || !reason.trim()}>
            {t("families.proposals.refuseSend")}
          </button>
        </form>
      )}
    </li>
  );
}
