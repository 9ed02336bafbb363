import { useTranslation } from "react-i18next";
import type { BodyDetail } from "../../api/types/catalogue.ts";
import { useFormat } from "../../app/prefs.tsx";

/**
 * Numbers and names read from documents (detention papers, a hospital register) for this body, each with the
 * document it came from and the row, as imported (`dalil catalogue documents import`). They are not the card's
 * numbers: those are in the numbers section, each with its reading.
 */
export function BodyDocuments({ body }: { body: BodyDetail }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (body.documents.length === 0) return null;
  return (
    <section className="card" aria-labelledby="documents-title" data-testid="body-documents">
      <h2 id="documents-title">{t("catalogue.documents.title")}</h2>
      <p className="muted small">{t("catalogue.documents.help")}</p>
      <table>
        <thead>
          <tr>
            <th scope="col">{t("catalogue.documents.kind")}</th>
            <th scope="col">{t("catalogue.documents.value")}</th>
            <th scope="col">{t("catalogue.documents.source")}</th>
            <th scope="col">{t("catalogue.documents.imported")}</th>
          </tr>
        </thead>
        <tbody>
          {body.documents.map((d) => (
            <tr key={d.id}>
              <td>{t(`catalogue.documents.kinds.${d.kind}`)}</td>
              <td dir="auto">{d.value}</td>
              <td>
                <span dir="auto">{d.source}</span> · {t("catalogue.documents.row", { n: fmt.num(d.row) })}
              </td>
              <td>{fmt.dateTime(d.importedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
