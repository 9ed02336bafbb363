import { useTranslation } from "react-i18next";
import { useFormat } from "../../app/prefs.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Person } from "../../components/Person.tsx";
import type { PackageList } from "../../api/types/dossiers.ts";
import { dossiers } from "./api.ts";

/**
 * The packages built of this dossier, newest first: the version packaged, for whom, with which clearance, who
 * built it and when, and its download while the bag is still on the server (the file is named after the dossier).
 */
export function Packages({ list, error }: { list: PackageList | null; error: unknown }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <section aria-labelledby="dos-packages-title" data-testid="dossier-packages">
      <h2 id="dos-packages-title">{t("dossiers.packages.title")}</h2>
      <ErrorNote error={error} />
      {list && list.items.length === 0 && <p className="muted">{t("dossiers.packages.none")}</p>}
      {list && list.items.length > 0 && (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">{t("dossiers.packages.title")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("dossiers.packages.version")}</th>
                <th scope="col">{t("dossiers.packages.recipient")}</th>
                <th scope="col">{t("dossiers.packages.clearance")}</th>
                <th scope="col">{t("dossiers.packages.builtBy")}</th>
                <th scope="col">{t("dossiers.packages.at")}</th>
                <th scope="col">{t("dossiers.packages.download")}</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((p) => (
                <tr key={p.job} data-status={p.status}>
                  <td>{fmt.num(p.version)}</td>
                  <td dir="auto">{p.recipient}</td>
                  <td>{t(`dossiers.clearances.${p.clearance}`, { defaultValue: p.clearance })}</td>
                  <td>
                    <Person id={p.requestedBy} />
                  </td>
                  <td>{fmt.dateTime(p.finishedAt ?? p.requestedAt)}</td>
                  <td>
                    {p.status === "done" ? (
                      <>
                        <a href={dossiers.downloadUrl(p.job, "tar")} download data-testid="package-download">
                          {t("dossiers.package.downloadTar")}
                        </a>{" "}
                        <a href={dossiers.downloadUrl(p.job, "zip")} download>
                          {t("dossiers.package.downloadZip")}
                        </a>
                      </>
                    ) : (
                      t(`dossiers.packages.status.${p.status}`)
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
