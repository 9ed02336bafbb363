import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "../../app/router.tsx";
import { Dialog } from "../../components/Dialog.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { dossiers } from "../dossiers/api.ts";
import "./browse.css";

/**
 * "Add to a dossier" from a body's page or a photograph's: choose a dossier (or name a new one), say why it
 * belongs there, and the dossiers module's own use cases do the rest (create the dossier, select the exhibit),
 * each a custody event as on the dossier's page.
 */
export function AddToDossier({ kind, refText }: { kind: "body" | "photo"; refText: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [list, setList] = useState<{ id: string; name: string }[] | null>(null);
  const [choice, setChoice] = useState("");
  const [title, setTitle] = useState("");
  const [reasoning, setReasoning] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<{ id: string; name: string } | null>(null);

  const start = async () => {
    setOpen(true);
    setError(null);
    setReasoning("");
    setTitle("");
    try {
      const all = await dossiers.list();
      setList(all.map((d) => ({ id: d.id, name: d.name })));
      setChoice(all[0]?.id ?? "new");
    } catch (e) {
      setError(e);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const target = choice === "new" ? await dossiers.create(title.trim(), "") : list!.find((d) => d.id === choice)!;
      await dossiers.addExhibit(target.id, kind, refText, reasoning.trim());
      setDone({ id: target.id, name: target.name });
      setOpen(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <span className="add-to-dossier">
      <button type="button" onClick={() => void start()} data-testid="add-to-dossier">
        {t("browse.addToDossier.open")}
      </button>
      {done && (
        <span className="add-to-dossier-done" role="status">
          {" "}
          {t("browse.addToDossier.added", { title: done.name })}{" "}
          <Link to={`/dossiers/${done.id}`}>{t("browse.addToDossier.open_link")}</Link>
        </span>
      )}
      <Dialog open={open} title={t("browse.addToDossier.title")} onClose={() => setOpen(false)}>
        <form onSubmit={(e) => void submit(e)}>
          <div className="field">
            <label htmlFor="atd-dossier">{t("browse.addToDossier.existing")}</label>
            <select id="atd-dossier" value={choice} onChange={(e) => setChoice(e.target.value)}>
              {(list ?? []).map((d) => (
                <option key={d.id} value={d.id} dir="auto">
                  {d.name}
                </option>
              ))}
              <option value="new">{t("browse.addToDossier.new")}</option>
            </select>
          </div>
          {choice === "new" && (
            <div className="field">
              <label htmlFor="atd-title">{t("browse.addToDossier.newTitle")}</label>
              <input id="atd-title" required maxLength={300} value={title} onChange={(e) => setTitle(e.target.value)} dir="auto" />
            </div>
          )}
          <div className="field">
            <label htmlFor="atd-reasoning">{t("browse.addToDossier.reasoning")}</label>
            <textarea id="atd-reasoning" required maxLength={8000} rows={3} value={reasoning} onChange={(e) => setReasoning(e.target.value)} dir="auto" />
          </div>
          <ErrorNote error={error} />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy || list === null || reasoning.trim() === "" || (choice === "new" && title.trim() === "")}>
              {t("browse.addToDossier.confirm")}
            </button>
            <button type="button" onClick={() => setOpen(false)}>
              {t("common.cancel")}
            </button>
          </div>
        </form>
      </Dialog>
    </span>
  );
}
