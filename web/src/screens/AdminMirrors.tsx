import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.ts";
import { useFormat } from "../app/prefs.tsx";
import { ErrorNote } from "../components/ErrorNote.tsx";
import { Hash } from "../components/Hash.tsx";
import { Notice } from "../components/Notice.tsx";
import { useAsync } from "../components/useAsync.ts";
import { useAction } from "../components/useAction.ts";

/**
 * The admin's mirrors: the custodians granted a copy, and granting or revoking one (the same use cases as
 * `dalil mirror grant/revoke`). A new grant's token is shown here once, with a copy button: the server keeps only
 * its hash, so it cannot be shown again.
 */
export function AdminMirrors() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const m = useAsync(() => api.mirrors(), []);
  const [name, setName] = useState("");
  const [issued, setIssued] = useState<{ name: string; token: string } | null>(null);
  const { act, busy, error } = useAction(() => m.reload());

  return (
    <section aria-labelledby="mirrors-title" data-testid="mirrors">
      <h2 id="mirrors-title">{t("mirrors.title")}</h2>
      <p className="small">{t("mirrors.intro")}</p>
      <form
        className="card grant-form"
        data-testid="mirror-grant"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const r = await api.grantMirror(name.trim());
            setIssued({ name: r.name, token: r.token });
            setName("");
          });
        }}
      >
        <h3>{t("mirrors.grant")}</h3>
        <div className="field">
          <label htmlFor="mirror-name">{t("mirrors.name")}</label>
          <input id="mirror-name" dir="auto" required maxLength={120} value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <button type="submit" className="primary" disabled={busy}>
          {t("mirrors.grantButton")}
        </button>
      </form>
      {issued && (
        <Notice kind="warn" title={t("mirrors.tokenTitle", { name: issued.name })}>
          <p data-testid="mirror-token">
            <Hash value={issued.token} />
          </p>
          <p>{t("mirrors.tokenExplain")}</p>
          <button type="button" onClick={() => setIssued(null)}>
            {t("mirrors.tokenDone")}
          </button>
        </Notice>
      )}
      <ErrorNote error={error ?? m.error} />
      {m.data && m.data.length === 0 && <p>{t("mirrors.none")}</p>}
      {m.data && m.data.length > 0 && (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{t("mirrors.name")}</th>
                <th scope="col">{t("mirrors.granted")}</th>
                <th scope="col">{t("mirrors.state")}</th>
                <th scope="col">{t("mirrors.lastFetched")}</th>
                <th scope="col">{t("mirrors.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {m.data.map((g) => (
                <tr key={g.id}>
                  <th scope="row" dir="auto">
                    {g.name}
                  </th>
                  <td>{fmt.dateTime(g.createdAt)}</td>
                  <td>{g.revokedAt ? t("mirrors.revoked", { at: fmt.dateTime(g.revokedAt) }) : t("mirrors.live")}</td>
                  <td>{g.lastSeenAt ? fmt.dateTime(g.lastSeenAt) : t("mirrors.never")}</td>
                  <td className="row-actions">
                    {!g.revokedAt && (
                      <button
                        type="button"
                        disabled={busy}
                        onClick={() => {
                          if (window.confirm(t("mirrors.revokeConfirm", { name: g.name }))) void act(() => api.revokeMirror(g.name));
                        }}
                      >
                        {t("mirrors.revoke")}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
