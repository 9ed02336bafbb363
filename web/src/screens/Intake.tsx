import { useCallback, useEffect, useRef, useState, type DragEvent } from "react";
import { useTranslation } from "react-i18next";
import { api, uploadFile } from "../api/client.ts";
import type { IngestResult, Job, SightingsPage, SourceRow } from "../api/types.ts";
import { useFormat } from "../app/prefs.tsx";
import type { ScreenProps } from "../app/screens.ts";
import { ErrorNote, ServerText } from "../components/ErrorNote.tsx";
import { Notice } from "../components/Notice.tsx";
import { useAsync } from "../components/useAsync.ts";
import { TimeLeft } from "../components/TimeLeft.tsx";

/**
 * Taking in a card from the browser: drop a folder (or choose one), or a .zip or disk image; each file is
 * uploaded with its own progress; then the server takes the whole card in as a job whose progress the page
 * follows; the tally at the end says what became of every file (ingested, duplicate, quarantined with the
 * reason). Below, every intake so far, by source.
 */
interface Picked {
  path: string;
  file: File;
}

type FileState = { state: "waiting" } | { state: "uploading"; sent: number } | { state: "done" } | { state: "failed"; error: unknown };

const CONCURRENCY = 3;
const CONTAINER = /\.(zip|img|dd|raw|bin|ima|iso)$/i;

/** Strips the top folder (the card itself) from each path; it becomes the default label. */
function fromFolder(files: Picked[]): { label: string; files: Picked[] } {
  const top = files[0]?.path.split("/")[0] ?? "";
  const all = top !== "" && files.every((f) => f.path.startsWith(`${top}/`));
  return { label: all ? top : "", files: all ? files.map((f) => ({ path: f.path.slice(top.length + 1), file: f.file })) : files };
}

async function readEntries(entry: FileSystemEntry, prefix: string, out: Picked[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
    out.push({ path: `${prefix}${entry.name}`, file });
  } else if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries answers in batches until it answers an empty one.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
      if (batch.length === 0) break;
      for (const e of batch) await readEntries(e, `${prefix}${entry.name}/`, out);
    }
  }
}

export function Intake(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [picked, setPicked] = useState<{ kind: "folder" | "container"; files: Picked[] } | null>(null);
  const [label, setLabel] = useState("");
  const [states, setStates] = useState<FileState[]>([]);
  const [uploadId, setUploadId] = useState<string | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [dragging, setDragging] = useState(false);
  const folderInput = useRef<HTMLInputElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const sources = useAsync(() => api.sources(), []);

  useEffect(() => {
    const el = folderInput.current;
    if (el) el.webkitdirectory = true;
  }, []);

  const choose = (kind: "folder" | "container", files: Picked[]) => {
    if (files.length === 0) return;
    const f = kind === "folder" ? fromFolder(files) : { label: files[0]!.file.name.replace(/\.[^.]+$/, ""), files };
    setPicked({ kind, files: f.files });
    setLabel(f.label);
    setStates(f.files.map(() => ({ state: "waiting" })));
    setUploadId(null);
    setJobId(null);
    setJob(null);
    setError(null);
  };

  const onDrop = async (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setDragging(false);
    const entries = [...e.dataTransfer.items].map((i) => i.webkitGetAsEntry()).filter((x): x is FileSystemEntry => x !== null);
    if (entries.length === 1 && entries[0]!.isFile && CONTAINER.test(entries[0]!.name)) {
      const file = e.dataTransfer.files[0];
      if (file) choose("container", [{ path: file.name, file }]);
      return;
    }
    const out: Picked[] = [];
    for (const entry of entries) await readEntries(entry, "", out);
    choose("folder", out);
  };

  const setState = (i: number, s: FileState) => setStates((prev) => prev.map((p, j) => (j === i ? s : p)));

  const upload = async () => {
    if (!picked) return;
    setBusy(true);
    setError(null);
    try {
      const id = uploadId ?? (await api.createUpload(picked.kind, label.trim() || undefined)).id;
      setUploadId(id);
      const todo = picked.files.map((_, i) => i).filter((i) => states[i]?.state !== "done");
      let next = 0;
      let failed = 0;
      const worker = async () => {
        while (next < todo.length) {
          const i = todo[next++]!;
          const p = picked.files[i]!;
          setState(i, { state: "uploading", sent: 0 });
          try {
            await uploadFile(id, p.path, p.file, (sent) => setState(i, { state: "uploading", sent }));
            setState(i, { state: "done" });
          } catch (err) {
            failed++;
            setState(i, { state: "failed", error: err });
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, todo.length) }, worker));
      if (failed > 0) return;
      const { job: jid } = await api.startIngest(id, label.trim() || undefined);
      setJobId(jid);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  // Follow the ingest job until it ends.
  useEffect(() => {
    if (!jobId) return;
    let alive = true;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        const j = await api.job(jobId);
        if (!alive) return;
        setJob(j);
        if (j.status === "done" || j.status === "failed") {
          void sources.reload();
          return;
        }
      } catch (e) {
        if (alive) setError(e);
      }
      timer = setTimeout(() => void poll(), 700);
    };
    void poll();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
    // sources.reload is stable
  }, [jobId]);

  const counts = states.reduce(
    (c, s) => {
      c[s.state]++;
      return c;
    },
    { waiting: 0, uploading: 0, done: 0, failed: 0 } as Record<FileState["state"], number>,
  );
  const totalBytes = picked?.files.reduce((n, f) => n + f.file.size, 0) ?? 0;
  const sentBytes =
    picked?.files.reduce((n, f, i) => {
      const s = states[i];
      return n + (s?.state === "done" ? f.file.size : s?.state === "uploading" ? s.sent : 0);
    }, 0) ?? 0;
  const result = job?.status === "done" ? (job.result as IngestResult) : null;

  return (
    <section className="intake" aria-labelledby="intake-title">
      <h1 id="intake-title">{t("intake.title")}</h1>
      <p>{t("intake.intro")}</p>

      <div
        className={`dropzone${dragging ? " dragging" : ""}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => void onDrop(e)}
        data-testid="dropzone"
      >
        <p>{t("intake.drop")}</p>
        <div className="actions">
          <button type="button" onClick={() => folderInput.current?.click()} disabled={busy}>
            {t("intake.chooseFolder")}
          </button>
          <button type="button" onClick={() => fileInput.current?.click()} disabled={busy}>
            {t("intake.chooseFile")}
          </button>
        </div>
        <input
          ref={folderInput}
          type="file"
          multiple
          className="sr-only"
          tabIndex={-1}
          aria-hidden="true"
          data-testid="folder-input"
          onChange={(e) => choose("folder", [...(e.target.files ?? [])].map((file) => ({ path: file.webkitRelativePath || file.name, file })))}
        />
        <input
          ref={fileInput}
          type="file"
          accept=".zip,.img,.dd,.raw,.bin,.ima,.iso,application/zip"
          className="sr-only"
          tabIndex={-1}
          aria-hidden="true"
          data-testid="file-input"
          onChange={(e) => choose("container", [...(e.target.files ?? [])].slice(0, 1).map((file) => ({ path: file.name, file })))}
        />
      </div>

      {picked && (
        <section aria-labelledby="picked-title" className="card">
          <h2 id="picked-title">{t("intake.selected")}</h2>
          <p data-testid="picked-summary">
            {t(picked.kind === "folder" ? "intake.kindFolder" : "intake.kindContainer")} · {t("intake.filesAndSize", { files: fmt.num(picked.files.length), count: picked.files.length, size: fmt.bytes(totalBytes) })}
          </p>
          <div className="field">
            <label htmlFor="source-label">{t("intake.label")}</label>
            <input id="source-label" value={label} onChange={(e) => setLabel(e.target.value)} disabled={uploadId !== null} maxLength={200} dir="auto" aria-describedby="label-hint" />
            <p id="label-hint" className="muted small">
              {t("intake.labelHint")}
            </p>
          </div>
          {!jobId && (
            <button type="button" className="primary" onClick={() => void upload()} disabled={busy} data-testid="start-upload">
              {counts.failed > 0 ? t("intake.retry") : t("intake.start")}
            </button>
          )}
          {uploadId && (
            <div className="progress-block">
              <label htmlFor="upload-progress">{t("intake.uploaded", { done: fmt.num(counts.done), total: fmt.num(states.length), count: states.length, bytes: fmt.bytes(sentBytes), size: fmt.bytes(totalBytes) })}</label>
              <progress id="upload-progress" max={Math.max(1, totalBytes)} value={sentBytes} />
              {counts.failed > 0 && <Notice kind="error" title={t("intake.someFailed", { n: fmt.num(counts.failed), count: counts.failed })} />}
            </div>
          )}
          <FileList picked={picked.files} states={states} />
          <ErrorNote error={error} />
        </section>
      )}

      {jobId && (
        <section aria-labelledby="job-title" className="card" aria-live="polite">
          <h2 id="job-title">{t("intake.jobTitle")}</h2>
          {!job || job.status === "queued" ? (
            <p>{t("intake.jobQueued")}</p>
          ) : job.status === "running" ? (
            <div className="progress-block">
              <label htmlFor="job-progress">{t("intake.jobRunning", { done: fmt.num(job.progress.done), total: fmt.num(job.progress.total), count: job.progress.total })}</label>
              <progress id="job-progress" max={Math.max(1, job.progress.total)} value={job.progress.done} />
              <TimeLeft done={job.progress.done} total={job.progress.total} />
            </div>
          ) : job.status === "failed" ? (
            <Notice kind="error" title={t("intake.jobFailed")}>
              <p>
                <ServerText text={job.error} messageKey={job.errorKey} params={job.errorParams} />
              </p>
            </Notice>
          ) : null}
          {result && <Tally result={result} />}
        </section>
      )}

      <section aria-labelledby="history-title">
        <h2 id="history-title">{t("intake.history")}</h2>
        <ErrorNote error={sources.error} />
        {sources.data && sources.data.length === 0 && <p className="muted">{t("intake.noHistory")}</p>}
        {sources.data && sources.data.length > 0 && <SourcesTable rows={sources.data} />}
      </section>
    </section>
  );
}

function FileList({ picked, states }: { picked: Picked[]; states: FileState[] }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const SHOW = 200;
  // Files in flight or failed first: those are the ones to watch.
  const order = picked.map((_, i) => i).sort((a, b) => rank(states[a]) - rank(states[b]));
  return (
    <details className="file-list" open={picked.length <= 50}>
      <summary>{t("intake.fileList", { n: fmt.num(picked.length) })}</summary>
      <ul className="plain" data-testid="file-list">
        {order.slice(0, SHOW).map((i) => {
          const p = picked[i]!;
          const s = states[i] ?? { state: "waiting" };
          return (
            <li key={i} className={`file file-${s.state}`}>
              <code dir="ltr">{p.path}</code> <span className="muted">{fmt.bytes(p.file.size)}</span>{" "}
              {s.state === "uploading" ? (
                <progress max={Math.max(1, p.file.size)} value={s.sent} aria-label={t("intake.fileProgress", { path: p.path })} />
              ) : (
                <span className={`badge badge-${s.state}`}>{t(`intake.fileStates.${s.state}`)}</span>
              )}
              {s.state === "failed" && <ErrorNote error={s.error} />}
            </li>
          );
        })}
      </ul>
      {picked.length > SHOW && <p className="muted small">{t("intake.moreFiles", { n: fmt.num(picked.length - SHOW) })}</p>}
    </details>
  );
}

function rank(s: FileState | undefined): number {
  return s?.state === "failed" ? 0 : s?.state === "uploading" ? 1 : s?.state === "waiting" ? 2 : 3;
}

function Tally({ result }: { result: IngestResult }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const adds = result.ingested + result.duplicates + result.quarantined === result.files;
  return (
    <div data-testid="tally">
      <Notice kind={result.quarantined > 0 ? "warn" : "ok"} title={t("intake.done")}>
        <dl className="tally">
          <div>
            <dt>{t("intake.files")}</dt>
            <dd data-testid="tally-files" data-value={result.files}>
              {fmt.num(result.files)}
            </dd>
          </div>
          <div>
            <dt>{t("intake.ingested")}</dt>
            <dd data-testid="tally-ingested" data-value={result.ingested}>
              {fmt.num(result.ingested)}
            </dd>
          </div>
          <div>
            <dt>{t("intake.duplicates")}</dt>
            <dd data-testid="tally-duplicates" data-value={result.duplicates}>
              {fmt.num(result.duplicates)}
            </dd>
          </div>
          <div>
            <dt>{t("intake.quarantined")}</dt>
            <dd data-testid="tally-quarantined" data-value={result.quarantined}>
              {fmt.num(result.quarantined)}
            </dd>
          </div>
        </dl>
        <p className="small">{adds ? t("intake.addsUp") : t("intake.doesNotAddUp")}</p>
      </Notice>
      {result.quarantined > 0 && <Quarantined source={result.source} />}
    </div>
  );
}

function Quarantined({ source }: { source: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [page, setPage] = useState<SightingsPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(
    async (offset: number) => {
      try {
        const r = await api.sourceSightings(source, "quarantined", offset, 100);
        setPage((prev) => (prev && offset > 0 ? { ...r, items: [...prev.items, ...r.items] } : r));
      } catch (e) {
        setError(e);
      }
    },
    [source],
  );
  useEffect(() => {
    void load(0);
  }, [load]);
  return (
    <div className="quarantined">
      <h3>{t("intake.quarantinedTitle")}</h3>
      <ErrorNote error={error} />
      {page && (
        <div className="table-wrap">
          <table className="table" data-testid="quarantined">
            <thead>
              <tr>
                <th scope="col">{t("intake.entry")}</th>
                <th scope="col">{t("intake.file")}</th>
                <th scope="col">{t("intake.size")}</th>
                <th scope="col">{t("intake.reason")}</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((s) => (
                <tr key={s.entry}>
                  <td>{fmt.num(s.entry + 1)}</td>
                  <td>{s.path ? <code dir="ltr">{s.path}</code> : <span className="muted">{t("intake.pathHidden")}</span>}</td>
                  <td>{fmt.bytes(s.size)}</td>
                  <td>
                    <ServerText text={s.reason} messageKey={s.reasonKey} params={s.reasonParams} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page && page.items.length < page.total && (
        <button type="button" onClick={() => void load(page.items.length)}>
          {t("common.more")}
        </button>
      )}
    </div>
  );
}

function SourcesTable({ rows }: { rows: SourceRow[] }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div className="table-wrap">
      <table className="table" data-testid="sources">
        <thead>
          <tr>
            <th scope="col">{t("intake.source")}</th>
            <th scope="col">{t("intake.kind")}</th>
            <th scope="col">{t("intake.started")}</th>
            <th scope="col">{t("intake.files")}</th>
            <th scope="col">{t("intake.ingested")}</th>
            <th scope="col">{t("intake.duplicates")}</th>
            <th scope="col">{t("intake.quarantined")}</th>
            <th scope="col">{t("intake.state")}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <SourceRowView key={s.id} s={s} open={open === s.id} toggle={() => setOpen(open === s.id ? null : s.id)} fmt={fmt} t={t} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SourceRowView({
  s,
  open,
  toggle,
  fmt,
  t,
}: {
  s: SourceRow;
  open: boolean;
  toggle: () => void;
  fmt: ReturnType<typeof useFormat>;
  t: ReturnType<typeof useTranslation>["t"];
}) {
  return (
    <>
      <tr>
        <th scope="row" dir="auto">
          {s.label}
        </th>
        <td>{t(`intake.kinds.${s.kind}`, { defaultValue: s.kind })}</td>
        <td>{fmt.dateTime(s.started_at)}</td>
        <td>{fmt.num(Number(s.files))}</td>
        <td>{fmt.num(Number(s.ingested))}</td>
        <td>{fmt.num(Number(s.duplicates))}</td>
        <td>
          {fmt.num(Number(s.quarantined))}
          {Number(s.quarantined) > 0 && (
            <>
              {" "}
              <button type="button" className="link-button" aria-expanded={open} onClick={toggle}>
                {open ? t("intake.hideQuarantined") : t("intake.showQuarantined")}
              </button>
            </>
          )}
        </td>
        <td>{t(`intake.states.${s.status}`, { defaultValue: s.status })}</td>
      </tr>
      {open && (
        <tr>
          <td colSpan={8}>
            <Quarantined source={s.id} />
          </td>
        </tr>
      )}
    </>
  );
}
