import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.ts";
import { useFormat } from "../app/prefs.tsx";
import { navigate } from "../app/router.tsx";
import { useSession } from "../app/session.tsx";
import type { ScreenProps } from "../app/screens.ts";
import { ErrorNote } from "../components/ErrorNote.tsx";
import { Pair } from "../components/Pair.tsx";
import { useAsync } from "../components/useAsync.ts";

/** One's own account: who, which role, the sessions that are signed in, and signing out of all of them. */
export function Account(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const sessions = useAsync(() => api.mySessions(), []);
  const [error, setError] = useState<unknown>(null);
  const user = session.info?.user;
  return (
    <section aria-labelledby="account-title" className="narrow">
      <h1 id="account-title">{t("account.title")}</h1>
      {user && (
        <dl className="pairs">
          <Pair term={t("admin.email")}>
            {user.email ? <span dir="ltr">{user.email}</span> : t("app.you")}
          </Pair>
          <Pair term={t("admin.role")}>{t(`roles.${user.role}`)}</Pair>
          <Pair term={t("admin.secondFactor")}>{user.secondFactor ? t("common.yes") : t("common.no")}</Pair>
        </dl>
      )}
      <h2>{t("account.sessions")}</h2>
      <ErrorNote error={error ?? sessions.error} />
      {sessions.data && (
        <ul className="plain">
          {sessions.data.map((s) => (
            <li key={s.id}>
              {t("account.sessionLine", { started: fmt.dateTime(s.createdAt), seen: fmt.dateTime(s.lastSeenAt) })}
              {s.current ? (
                <strong> · {t("account.thisBrowser")}</strong>
              ) : (
                <button
                  type="button"
                  className="link-button"
                  onClick={() =>
                    void api
                      .endSession(s.id)
                      .then(() => sessions.reload())
                      .catch(setError)
                  }
                >
                  {t("account.end")}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <button
        type="button"
        onClick={() =>
          void api
            .logoutEverywhere()
            .then(() => session.refresh())
            .then(() => navigate("/signin"))
            .catch(setError)
        }
      >
        {t("account.everywhere")}
      </button>
    </section>
  );
}
