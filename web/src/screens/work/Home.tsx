import { useTranslation } from "react-i18next";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { useSession } from "../../app/session.tsx";
import { api } from "../../api/client.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { useAsync } from "../../components/useAsync.ts";
import "./work.css";

/**
 * What waits for this person, by kind, each with a link to its list: the first screen after signing in. The
 * server decides which kinds are this person's work; a kind with nothing waiting says so.
 */
export function Home(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const work = useAsync(() => api.work(), []);
  const role = session.perms?.role;
  return (
    <section aria-labelledby="home-title" data-testid="home">
      <div className="screen-head">
        <h1 id="home-title">{t("work.title")}</h1>
      </div>
      {role && <p className="muted">{t(`work.intro.${role}`, { defaultValue: t("work.intro.other") })}</p>}
      <ErrorNote error={work.error} />
      {work.loading && !work.data && <p className="muted">{t("app.loading")}</p>}
      {work.data && work.data.items.length === 0 && <p>{t("work.none")}</p>}
      {work.data && work.data.items.length > 0 && (
        <ul className="work-list">
          {work.data.items.map((w) => (
            <li key={w.kind} className={w.count > 0 ? "work-item waiting" : "work-item"} data-kind={w.kind} data-count={w.count}>
              <Link to={w.href} className="work-link">
                <span className="work-count">{fmt.num(w.count)}</span>
                <span className="work-what">{t(`work.kinds.${w.kind}`, { count: w.count })}</span>
              </Link>
              {w.count === 0 && <span className="muted small"> {t(`work.nothing.${w.kind}`)}</span>}
              {w.records && w.records.length > 0 && (
                <ul className="work-records">
                  {w.records.map((r) => (
                    <li key={r.href}>
                      <Link to={r.href} dir="ltr">
                        {r.ref}
                      </Link>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
