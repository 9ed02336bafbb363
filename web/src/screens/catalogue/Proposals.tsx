import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../../api/client.ts";
import { PROPOSAL_STATUSES, type BodyDetail, type ProposalStatus, type ProposalView } from "../../api/types/catalogue.ts";
import type { Job } from "../../api/types.ts";
import { Link, navigate, useLocation } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { ErrorNote, ServerText } from "../../components/ErrorNote.tsx";
import { Notice } from "../../components/Notice.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { shortcut } from "../../components/shortcut.ts";
import { catalogue } from "./api.ts";
import { Thumb, useAct, useTerms } from "./shared.tsx";
import { Person } from "../../components/Person.tsx";
import { TimeLeft } from "../../components/TimeLeft.tsx";

/**
 * The grouping proposals of one intake source: the card reader read each card photograph and the grouping
 * put together the photographs it thinks show one person. A person decides each: accept (a body record is
 * made), reject, split (the chosen photographs become a proposal of their own) or merge with others. All of it
 * by keyboard: Tab or the arrow keys move between proposals, A accepts, R rejects, M marks one for a merge.
 */
const PAGE = 50;

export function Proposals({ params }: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const canGroup = session.can("catalogue.group");
  const sourceId = params.id!;
  const { search } = useLocation();
  const statusParam = search.get("status") ?? "proposed";
  const status: ProposalStatus | undefined = PROPOSAL_STATUSES.find((s) => s === statusParam);
  const sources = useAsync(() => api.sources(), []);
  const source = sources.data?.find((s) => s.id === sourceId);
  const [items, setItems] = useState<ProposalView[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [forMerge, setForMerge] = useState<Set<string>>(new Set());
  const [accepted, setAccepted] = useState<BodyDetail | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const { busy, error, act } = useAct();
  const listRef = useRef<HTMLDivElement>(null);
  // After a decision made by keyboard, focus goes to the proposal now in its place (the next one to decide),
  // once the list has been reloaded.
  const refocus = useRef<number | null>(null);
  useEffect(() => {
    const at = refocus.current;
    if (at === null) return;
    refocus.current = null;
    const all = listRef.current?.querySelectorAll<HTMLElement>("article.cat-proposal") ?? [];
    // None left to decide: to the new body's link (or the error) at the top.
    const next = all.length ? all[Math.min(at, all.length - 1)] : document.querySelector<HTMLElement>("[data-testid=accepted-body]");
    next?.focus();
  }, [items]);

  const load = async (after?: number) => {
    const page = await catalogue.proposals(sourceId, status, after, PAGE);
    setItems((old) => (after === undefined ? page.items : [...old, ...page.items]));
    setNext(page.next);
    setLoaded(true);
  };
  useEffect(() => {
    setForMerge(new Set());
    void act(() => load());
    // Reload when the source or the filter changes.
  }, [sourceId, status]);

  const decide = async (run: () => Promise<unknown>) => {
    if (await act(run)) {
      setForMerge(new Set());
      await act(() => load());
    }
  };
  const accept = (p: ProposalView) =>
    decide(async () => {
      setAccepted(await catalogue.accept(p.id));
    });
  const reject = (p: ProposalView) => decide(() => catalogue.reject(p.id));
  const split = (p: ProposalView, chosen: string[]) =>
    decide(() =>
      catalogue.splitProposal(p.id, [
        p.photos.filter((s) => !chosen.includes(s)),
        p.photos.filter((s) => chosen.includes(s)),
      ]),
    );
  const merge = () => decide(() => catalogue.mergeProposals([...forMerge]));
  const toggleMerge = (id: string) =>
    setForMerge((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  // Proposing is a job (it reads every card photograph); the page follows it and reloads at the end.
  const propose = async () => {
    await act(async () => {
      const { jobId } = await catalogue.propose(sourceId);
      for (;;) {
        const j = await api.job(jobId);
        setJob(j);
        if (j.status === "done" || j.status === "failed") break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      await load();
    });
  };

  const moveFocus = (e: KeyboardEvent<HTMLElement>, p: ProposalView) => {
    if (e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey) return;
    const all = [...(listRef.current?.querySelectorAll<HTMLElement>("article.cat-proposal") ?? [])];
    const i = all.indexOf(e.currentTarget);
    const key = e.key.startsWith("Arrow") ? e.key.toLowerCase() : shortcut(e);
    if (key === "arrowdown" || key === "j") all[i + 1]?.focus();
    else if (key === "arrowup" || key === "k") all[i - 1]?.focus();
    else if (canGroup && p.status === "proposed" && (key === "a" || key === "r")) {
      refocus.current = i;
      void (key === "a" ? accept(p) : reject(p));
    }
    else if (canGroup && p.status === "proposed" && key === "m") toggleMerge(p.id);
    else return;
    e.preventDefault();
  };

  return (
    <section aria-labelledby="proposals-title">
      <div className="screen-head">
        <h1 id="proposals-title">{t("catalogue.proposals.title")}</h1>
        {source && (
          <p className="muted" dir="auto">
            {source.label}
          </p>
        )}
        <Link to="/groupings">{t("catalogue.proposals.back")}</Link>
      </div>
      <p className="muted small" id="proposals-help">
        {t("catalogue.blurredNote")} {canGroup ? t("catalogue.proposals.keys") : ""}
      </p>
      <div className="actions">
        <div className="field">
          <label htmlFor="proposal-status">{t("catalogue.proposals.show")}</label>
          <select id="proposal-status" value={status ?? "all"} onChange={(e) => navigate(`/sources/${sourceId}/proposals?status=${e.target.value}`)}>
            <option value="all">{t("catalogue.proposals.all")}</option>
            {PROPOSAL_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`catalogue.proposals.status.${s}`)}
              </option>
            ))}
          </select>
        </div>
        {canGroup && (
          <button type="button" disabled={busy} onClick={() => void propose()} data-testid="propose">
            {t("catalogue.proposals.propose")}
          </button>
        )}
        {canGroup && (
          <button type="button" className="primary" disabled={busy || forMerge.size < 2} onClick={() => void merge()} data-testid="merge-proposals">
            {t("catalogue.proposals.merge", { n: fmt.num(forMerge.size), count: forMerge.size })}
          </button>
        )}
      </div>
      {job && job.status !== "done" && (
        <Notice kind={job.status === "failed" ? "error" : "info"} title={t("catalogue.proposals.proposing", { done: fmt.num(job.progress.done), total: fmt.num(job.progress.total), count: job.progress.total })}>
          {job.status === "running" && <TimeLeft done={job.progress.done} total={job.progress.total} />}
          {job.error && (
            <p>
              <ServerText text={job.error} messageKey={job.errorKey} params={job.errorParams} />
            </p>
          )}
        </Notice>
      )}
      {accepted && (
        <Notice kind="ok" title={t("catalogue.proposals.acceptedTitle", { ref: accepted.ref })}>
          <Link to={`/bodies/${accepted.id}`} data-testid="accepted-body">
            {t("catalogue.proposals.openBody", { ref: accepted.ref })}
          </Link>
        </Notice>
      )}
      <ErrorNote error={error ?? sources.error} />
      {loaded && items.length === 0 && <p>{t("catalogue.proposals.none")}</p>}
      <div ref={listRef} data-testid="proposals" aria-describedby="proposals-help">
        {items.map((p) => (
          <ProposalCard key={p.id} p={p} canGroup={canGroup} busy={busy} forMerge={forMerge.has(p.id)} onKeyDown={(e) => moveFocus(e, p)} onAccept={() => void accept(p)} onReject={() => void reject(p)} onSplit={(chosen) => void split(p, chosen)} onToggleMerge={() => toggleMerge(p.id)} />
        ))}
      </div>
      {next !== null && (
        <button type="button" disabled={busy} onClick={() => void act(() => load(next))}>
          {t("catalogue.more")}
        </button>
      )}
    </section>
  );
}

interface CardProps {
  p: ProposalView;
  canGroup: boolean;
  busy: boolean;
  forMerge: boolean;
  onKeyDown: (e: KeyboardEvent<HTMLElement>) => void;
  onAccept: () => void;
  onReject: () => void;
  onSplit: (chosen: string[]) => void;
  onToggleMerge: () => void;
}

function ProposalCard({ p, canGroup, busy, forMerge, onKeyDown, onAccept, onReject, onSplit, onToggleMerge }: CardProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const roles = useTerms("photo_role");
  const [chosen, setChosen] = useState<string[]>([]);
  const open = canGroup && p.status === "proposed";
  const titleId = `proposal-${p.id}`;
  return (
    <article className="cat-proposal" tabIndex={0} aria-labelledby={titleId} onKeyDown={onKeyDown} data-proposal-id={p.id} data-status={p.status}>
      <header>
        <h2 id={titleId}>{t("catalogue.proposals.one", { n: fmt.num(p.position), photos: fmt.num(p.photos.length), count: p.photos.length })}</h2>
        <span className={`badge ${p.status === "accepted" ? "badge-ok" : p.status === "rejected" ? "badge-warn" : ""}`}>{t(`catalogue.proposals.status.${p.status}`)}</span>
        {p.score !== null && <span className="muted small">{t("catalogue.proposals.score", { score: fmt.percent(p.score) })}</span>}
        {p.bodyId && <Link to={`/bodies/${p.bodyId}`}>{t("catalogue.proposals.toBody")}</Link>}
      </header>
      {p.numbers.length > 0 ? (
        <dl className="cat-numbers">
          {p.numbers.map((n, i) => (
            <div key={i}>
              <dt>{t(`catalogue.numbers.roles.${n.role}`)}</dt>
              <dd>
                <bdi>{n.value}</bdi>
              </dd>
              {n.confidence !== null && <dd className="muted small">{fmt.percent(n.confidence)}</dd>}
            </div>
          ))}
        </dl>
      ) : (
        <p className="muted small">{t("catalogue.proposals.noNumbers")}</p>
      )}
      {p.reasons.length > 0 && (
        <ul className="plain small muted">
          {p.reasons.map((r, i) => (
            <li key={i} lang="en" dir="ltr">
              {r.text}
            </li>
          ))}
        </ul>
      )}
      <ul className="cat-photos">
        {p.photos.map((sha, i) => {
          const label = t("catalogue.photoLabel", { n: fmt.num(i + 1), role: roles.label(p.roles[sha] ?? "other") });
          return (
            <li key={sha}>
              <Thumb sha256={sha} label={label} size={110} />
              <span>{roles.label(p.roles[sha] ?? "other")}</span>
              {open && p.photos.length > 1 && (
                <label>
                  <input type="checkbox" checked={chosen.includes(sha)} onChange={() => setChosen((c) => (c.includes(sha) ? c.filter((x) => x !== sha) : [...c, sha]))} />{" "}
                  {t("catalogue.proposals.pickForSplit")}
                </label>
              )}
            </li>
          );
        })}
      </ul>
      {open && (
        <div className="actions">
          <button type="button" className="primary" disabled={busy} onClick={onAccept} data-testid="accept">
            {t("catalogue.proposals.accept")}
          </button>
          <button type="button" disabled={busy} onClick={onReject}>
            {t("catalogue.proposals.reject")}
          </button>
          {p.photos.length > 1 && (
            <button type="button" disabled={busy || chosen.length === 0 || chosen.length === p.photos.length} onClick={() => onSplit(chosen)}>
              {t("catalogue.proposals.split", { n: fmt.num(chosen.length), count: chosen.length })}
            </button>
          )}
          <label>
            <input type="checkbox" checked={forMerge} onChange={onToggleMerge} /> {t("catalogue.proposals.forMerge")}
          </label>
        </div>
      )}
      {p.decidedBy && (
        <p className="muted small">
          {t("catalogue.proposals.decided")} <Person id={p.decidedBy} />, {fmt.dateTime(p.decidedAt)}
        </p>
      )}
    </article>
  );
}
