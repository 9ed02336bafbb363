import { AdminMirrors } from "./AdminMirrors.tsx";
import { AdminWitnesses } from "./AdminWitnesses.tsx";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.ts";
import type { UserView } from "../api/types.ts";
import { useFormat } from "../app/prefs.tsx";
import { useSession } from "../app/session.tsx";
import type { ScreenProps } from "../app/screens.ts";
import { ErrorNote } from "../components/ErrorNote.tsx";
import { Notice } from "../components/Notice.tsx";
import { useAsync } from "../components/useAsync.ts";
import { useAction } from "../components/useAction.ts";

/**
 * Accounts and roles (administrators): add an account with a role (the one-time password is shown here once,
 * to be handed over by a separate, safe channel), disable and enable, reset a password or a second factor.
 */
export function Admin(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const session = useSession();
  const users = useAsync(() => api.users(), []);
  const roles = session.perms?.roles ?? [];
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("investigator");
  const [issued, setIssued] = useState<{ email: string; password: string } | null>(null);
  const { act, busy, error } = useAction(() => users.reload());

  const reset = (u: UserView, secondFactor: boolean) =>
    act(async () => {
      const r = await api.resetUser(u.id, secondFactor);
      setIssued({ email: r.user.email, password: r.oneTimePassword });
    });

  return (
    <section className="admin" aria-labelledby="admin-title">
      <h1 id="admin-title">{t("admin.title")}</h1>
      <form
        className="card inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const r = await api.addUser(email.trim(), role);
            setIssued({ email: r.user.email, password: r.oneTimePassword });
            setEmail("");
          });
        }}
      >
        <h2>{t("admin.add")}</h2>
        <div className="field">
          <label htmlFor="new-email">{t("admin.email")}</label>
          <input id="new-email" type="email" dir="ltr" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="new-role">{t("admin.role")}</label>
          <select id="new-role" value={role} onChange={(e) => setRole(e.target.value)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {t(`roles.${r}`)}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="primary" disabled={busy}>
          {t("admin.addButton")}
        </button>
      </form>
      {issued && (
        <Notice kind="warn" title={t("admin.oneTimeTitle", { email: issued.email })}>
          <p>
            <code dir="ltr" className="secret" data-testid="one-time-password">
              {issued.password}
            </code>
          </p>
          <p>{t("admin.oneTimeExplain")}</p>
          <button type="button" onClick={() => setIssued(null)}>
            {t("admin.oneTimeDone")}
          </button>
        </Notice>
      )}
      <ErrorNote error={error ?? users.error} />
      {users.data && (
        <div className="table-wrap">
          <table className="table" data-testid="users">
            <caption>{t("admin.accounts", { n: fmt.num(users.data.length) })}</caption>
            <thead>
              <tr>
                <th scope="col">{t("admin.email")}</th>
                <th scope="col">{t("admin.role")}</th>
                <th scope="col">{t("admin.secondFactor")}</th>
                <th scope="col">{t("admin.state")}</th>
                <th scope="col">{t("admin.lastSignIn")}</th>
                <th scope="col">{t("admin.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <tr key={u.id}>
                  <th scope="row">
                    <span dir="ltr">{u.email}</span>
                  </th>
                  <td>{t(`roles.${u.role}`)}</td>
                  <td>{u.secondFactor ? t("common.yes") : t("common.no")}</td>
                  <td>
                    {u.disabled ? t("admin.disabled") : t("admin.active")}
                    {u.mustChangePassword && <span className="muted small"> · {t("admin.mustChange")}</span>}
                  </td>
                  <td>{u.lastSignInAt ? fmt.dateTime(u.lastSignInAt) : "—"}</td>
                  <td className="row-actions">
                    {u.id !== session.info?.user?.id &&
                      (u.disabled ? (
                        <button type="button" disabled={busy} onClick={() => void act(() => api.enableUser(u.id))}>
                          {t("admin.enable")}
                        </button>
                      ) : (
                        <button type="button" disabled={busy} onClick={() => void act(() => api.disableUser(u.id))}>
                          {t("admin.disable")}
                        </button>
                      ))}
                    {u.id !== session.info?.user?.id && (
                      <>
                        <button type="button" disabled={busy} onClick={() => void reset(u, false)}>
                          {t("admin.resetPassword")}
                        </button>
                        <button type="button" disabled={busy} onClick={() => void reset(u, true)}>
                          {t("admin.resetSecondFactor")}
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AdminMirrors />
      <AdminWitnesses />
    </section>
  );
}
