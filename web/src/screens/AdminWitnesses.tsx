import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, type AnswerOf } from "../api/client.ts";
import { useFormat } from "../app/prefs.tsx";
import { ErrorNote } from "../components/ErrorNote.tsx";
import { useAsync } from "../components/useAsync.ts";
import { useAction } from "../components/useAction.ts";

type PolicyView = AnswerOf<"witnessPolicy">;

/** The quorum in words: none, one witness, or k of a group's members. */
function useQuorumWords(): (p: PolicyView) => string {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (p) => {
    if (p.quorum === "none") return t("adminWitnesses.quorumNone");
    const g = p.groups.find((x) => x.name === p.quorum);
    if (!g) return t("adminWitnesses.quorumOne", { name: p.quorum });
    return t("adminWitnesses.quorumSome", { k: fmt.num(g.threshold), n: fmt.num(g.members.length), names: g.members.join(t("adminWitnesses.listSeparator")) });
  };
}

/**
 * The admin's witness policy: the witnesses the archive sends every new checkpoint to, adding and removing one,
 * and the quorum of cosignatures a checkpoint needs (the same use cases as `dalil log witness-policy`). Every
 * change is in force at once and logged; the log page shows what each witness last cosigned.
 */
export function AdminWitnesses() {
  const { t } = useTranslation();
  const p = useAsync(() => api.witnessPolicy(), []);
  const words = useQuorumWords();
  const [name, setName] = useState("");
  const [vkey, setVkey] = useState("");
  const [url, setUrl] = useState("");
  const [choice, setChoice] = useState("");
  const [k, setK] = useState(1);
  const [members, setMembers] = useState<string[] | null>(null);
  // after each change: the policy as the server now holds it, and the quorum form starts from it again
  const { act, busy, error } = useAction(async () => {
    await p.reload();
    setChoice("");
    setK(1);
    setMembers(null);
  });
  const d = p.data;
  const witnesses = d?.witnesses.map((w) => w.name) ?? [];
  const picked = members ?? witnesses;

  return (
    <section aria-labelledby="witnesses-admin-title" data-testid="witness-policy">
      <h2 id="witnesses-admin-title">{t("adminWitnesses.title")}</h2>
      <p className="small">{t("adminWitnesses.intro")}</p>
      {d && (
        <p className="small">
          {t(d.exists ? "adminWitnesses.file" : "adminWitnesses.fileNew")} <code dir="ltr">{d.file}</code>
        </p>
      )}
      <ErrorNote error={error ?? p.error} />
      {d && (
        <p data-testid="witness-quorum" dir="auto">
          <strong>{t("adminWitnesses.quorumNow")}</strong> {words(d)}
        </p>
      )}
      {d && d.witnesses.length === 0 && <p>{t("adminWitnesses.none")}</p>}
      {d && d.witnesses.length > 0 && (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{t("adminWitnesses.name")}</th>
                <th scope="col">{t("adminWitnesses.vkey")}</th>
                <th scope="col">{t("adminWitnesses.url")}</th>
                <th scope="col">{t("adminWitnesses.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {d.witnesses.map((w) => (
                <tr key={w.name}>
                  <th scope="row" dir="ltr">
                    {w.name}
                  </th>
                  <td>
                    <code dir="ltr" className="wrap">
                      {w.vkey}
                    </code>
                  </td>
                  <td dir="ltr">{w.url ?? t("adminWitnesses.noUrl")}</td>
                  <td className="row-actions">
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => {
                        if (window.confirm(t("adminWitnesses.removeConfirm", { name: w.name }))) void act(() => api.removeWitness(w.name));
                      }}
                    >
                      {t("adminWitnesses.remove", { name: w.name })}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form
        className="card grant-form"
        data-testid="witness-add"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            await api.addWitness({ name: name.trim(), vkey: vkey.trim(), ...(url.trim() ? { url: url.trim() } : {}) });
            setName("");
            setVkey("");
            setUrl("");
          });
        }}
      >
        <h3>{t("adminWitnesses.add")}</h3>
        <div className="field">
          <label htmlFor="witness-name">{t("adminWitnesses.name")}</label>
          <input id="witness-name" dir="ltr" required maxLength={64} pattern="[^\s#]+" value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="witness-vkey">{t("adminWitnesses.vkey")}</label>
          <input id="witness-vkey" dir="ltr" required maxLength={200} value={vkey} onChange={(e) => setVkey(e.target.value)} />
          <p className="small">{t("adminWitnesses.vkeyHelp")}</p>
        </div>
        <div className="field">
          <label htmlFor="witness-url">{t("adminWitnesses.url")}</label>
          <input id="witness-url" dir="ltr" type="url" maxLength={500} value={url} onChange={(e) => setUrl(e.target.value)} />
          <p className="small">{t("adminWitnesses.urlHelp")}</p>
        </div>
        <button type="submit" className="primary" disabled={busy}>
          {t("adminWitnesses.addButton")}
        </button>
      </form>
      {d && (
        <form
          className="card grant-form"
          data-testid="witness-quorum-form"
          onSubmit={(e) => {
            e.preventDefault();
            const q = choice || d.quorum;
            void act(() => api.setWitnessQuorum(q === "*some" ? { threshold: k, members: picked } : { quorum: q }));
          }}
        >
          <h3>{t("adminWitnesses.setQuorum")}</h3>
          <div className="field">
            <label htmlFor="witness-quorum-choice">{t("adminWitnesses.quorumChoice")}</label>
            <select id="witness-quorum-choice" value={choice || d.quorum} onChange={(e) => setChoice(e.target.value)}>
              <option value="none">{t("adminWitnesses.quorumNone")}</option>
              {d.witnesses.map((w) => (
                <option key={w.name} value={w.name}>
                  {t("adminWitnesses.quorumOne", { name: w.name })}
                </option>
              ))}
              {d.groups.map((g) => (
                <option key={g.name} value={g.name}>
                  {words({ ...d, quorum: g.name })}
                </option>
              ))}
              {d.witnesses.length > 0 && <option value="*some">{t("adminWitnesses.quorumSomeChoice")}</option>}
            </select>
          </div>
          {choice === "*some" && (
            <fieldset className="field">
              <legend>{t("adminWitnesses.quorumMembers")}</legend>
              {witnesses.map((w) => (
                <label key={w} className="check">
                  <input
                    type="checkbox"
                    checked={picked.includes(w)}
                    onChange={(e) => setMembers(e.target.checked ? [...picked, w] : picked.filter((x) => x !== w))}
                  />{" "}
                  <span dir="ltr">{w}</span>
                </label>
              ))}
              <label htmlFor="witness-quorum-k">{t("adminWitnesses.quorumK")}</label>
              <input id="witness-quorum-k" type="number" min={1} max={Math.max(1, picked.length)} required value={k} onChange={(e) => setK(Number(e.target.value))} />
            </fieldset>
          )}
          <button type="submit" className="primary" disabled={busy}>
            {t("adminWitnesses.setQuorumButton")}
          </button>
        </form>
      )}
    </section>
  );
}
