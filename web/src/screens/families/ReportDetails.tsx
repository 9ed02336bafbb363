import { useTranslation } from "react-i18next";
import type { ReportView } from "../../api/types/families.ts";
import { Pair } from "../../components/Pair.tsx";
import { useTerms } from "../catalogue/shared.tsx";

/** What the family told: the name part by part, dates with the precision they were given in, marks, reporter. */
export function ReportDetails({ report: r }: { report: ReportView }) {
  const { t } = useTranslation();
  const markTypes = useTerms("mark_type");
  const regions = useTerms("body_region");
  const governorates = useTerms("governorate");
  const dash = "—";
  return (
    <section className="card" aria-labelledby="fam-details-title">
      <h2 id="fam-details-title">{t("families.report.details")}</h2>
      <dl className="pairs" data-testid="report-details">
        <Pair term={t("families.form.name_ar")}>
          <span lang="ar" dir="rtl">
            {r.nameAr ?? dash}
          </span>
        </Pair>
        <Pair term={t("families.form.name_lat")}>
          <span lang="en" dir="ltr">
            {r.nameLat ?? dash}
          </span>
        </Pair>
        {(["given", "father", "grandfather", "family"] as const).map((s) => (
          <Pair key={s} term={t(`families.slots.${s}`)}>
            <span dir="auto">{r.slots[s] ?? dash}</span>
          </Pair>
        ))}
        <Pair term={t("families.slots.mother")}>
          <span dir="auto">{r.motherName ?? dash}</span>
        </Pair>
        <Pair term={t("families.fields.aliases")}>
          <span dir="auto">{r.aliases.length ? r.aliases.join("، ") : dash}</span>
        </Pair>
        <Pair term={t("families.fields.sex")}>{r.sex ? t(`families.sex.${r.sex}`) : dash}</Pair>
        <Pair term={t("families.fields.birthDate")}>
          <span dir="ltr">{r.birthDate ?? dash}</span>
          {r.birthPrecision && <span className="muted"> ({t(`families.precision.${r.birthPrecision}`, { defaultValue: r.birthPrecision })})</span>}
        </Pair>
        <Pair term={t("families.fields.arrestDate")}>
          <span dir="ltr">{r.arrestDate ?? dash}</span>
        </Pair>
        <Pair term={t("families.fields.arrestPlace")}>
          <span dir="auto">{r.arrestPlace ?? dash}</span>
          {r.arrestGovernorate && <span> · {governorates.label(r.arrestGovernorate)}</span>}
        </Pair>
        <Pair term={t("families.fields.branch")}>
          <span dir="auto">{r.branch ?? dash}</span>
          {r.branchCertainty && <span className="muted"> ({t(`families.certainty.${r.branchCertainty}`)})</span>}
        </Pair>
        <Pair term={t("families.fields.marks")}>
          {r.marks.length === 0 ? (
            dash
          ) : (
            <ul className="fam-plain">
              {r.marks.map((m, i) => (
                <li key={i}>
                  {markTypes.label(m.type)}
                  {m.region && <> · {regions.label(m.region)}</>}
                  {m.description && (
                    <>
                      {" "}
                      — <span dir="auto">{m.description}</span>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
        </Pair>
        <Pair term={t("families.form.reporter")}>
          <span dir="auto">{[r.reporterName, r.reporterRelationship, r.reporterContact].filter(Boolean).join(" · ") || dash}</span>
        </Pair>
        <Pair term={t("families.fields.status")}>{t(`families.status.${r.status}`, { defaultValue: r.status })}</Pair>
      </dl>
    </section>
  );
}
