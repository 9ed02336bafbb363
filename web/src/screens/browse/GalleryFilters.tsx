import "./browse.css";
import { useTranslation } from "react-i18next";
import { api } from "../../api/client.ts";
import { navigate } from "../../app/router.tsx";
import { useSession } from "../../app/session.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { BODY_FILTERS, NUMBER_FILTERS, filterQuery, type FilterKey, type Filters } from "./filters.ts";

/**
 * The gallery's filters: the body a photograph is in and how far it is identified, numbers read from it and
 * checked by a second person (both need the catalogue), the card it came from, the days it came in. Each choice
 * changes the address (/gallery?body=identified&numbers=checked), so a filtered list can be shared and reloaded;
 * the server does the filtering.
 */
export function GalleryFilters({ filters }: { filters: Filters }) {
  const { t } = useTranslation();
  const session = useSession();
  const sources = useAsync(() => api.sources(), []);
  const set = (k: FilterKey, v: string) => {
    const next = { ...filters, [k]: v || undefined };
    const q = filterQuery(next);
    navigate(`/gallery${q ? `?${q}` : ""}`, { replace: true });
  };
  const catalogue = session.can("catalogue.read");
  return (
    <form className="gallery-filters" role="search" aria-label={t("browse.filters.label")} onSubmit={(e) => e.preventDefault()}>
      {catalogue && (
        <div className="field">
          <label htmlFor="filter-body">{t("browse.filters.body")}</label>
          <select id="filter-body" value={filters.body ?? ""} onChange={(e) => set("body", e.target.value)}>
            <option value="">{t("browse.filters.all")}</option>
            {BODY_FILTERS.map((v) => (
              <option key={v} value={v}>
                {t(`browse.filters.bodies.${v}`)}
              </option>
            ))}
          </select>
        </div>
      )}
      {catalogue && (
        <div className="field">
          <label htmlFor="filter-numbers">{t("browse.filters.numbers")}</label>
          <select id="filter-numbers" value={filters.numbers ?? ""} onChange={(e) => set("numbers", e.target.value)}>
            <option value="">{t("browse.filters.all")}</option>
            {NUMBER_FILTERS.map((v) => (
              <option key={v} value={v}>
                {t(`browse.filters.numberStates.${v}`)}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="field">
        <label htmlFor="filter-source">{t("browse.filters.source")}</label>
        <select id="filter-source" value={filters.source ?? ""} onChange={(e) => set("source", e.target.value)}>
          <option value="">{t("browse.filters.all")}</option>
          {(sources.data ?? []).map((s) => (
            <option key={s.id} value={s.id} dir="auto">
              {s.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-from">{t("browse.filters.intakeFrom")}</label>
        <input id="filter-from" type="date" value={filters.intakeFrom ?? ""} onChange={(e) => set("intakeFrom", e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="filter-to">{t("browse.filters.intakeTo")}</label>
        <input id="filter-to" type="date" value={filters.intakeTo ?? ""} onChange={(e) => set("intakeTo", e.target.value)} />
      </div>
      {Object.keys(filters).length > 0 && (
        <button type="button" onClick={() => navigate("/gallery", { replace: true })}>
          {t("browse.filters.clear")}
        </button>
      )}
    </form>
  );
}
