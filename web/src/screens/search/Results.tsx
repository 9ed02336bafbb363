import { useTranslation } from "react-i18next";
import { api } from "../../api/client.ts";
import type { SearchHit } from "../../api/types/search.ts";
import { Link } from "../../app/router.tsx";
import { useFormat } from "../../app/prefs.tsx";
import type { View } from "./url.ts";

/**
 * One page of results, as a table or as a grid of blurred thumbnails (the body's first photograph; revealing
 * stays in the viewer, where it is logged). Names are shown as they were written, never normalised.
 */
interface Props {
  items: SearchHit[];
  view: View;
  /** Hospital code → its name in the reader's language. */
  hospitalName: (code: string | null) => string;
}

function name(h: SearchHit): string | null {
  return h.nameAr ?? h.nameLat;
}

export function Results({ items, view, hospitalName }: Props) {
  return view === "grid" ? <Grid items={items} /> : <List items={items} hospitalName={hospitalName} />;
}

function List({ items, hospitalName }: { items: SearchHit[]; hospitalName: (code: string | null) => string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <div className="table-wrap">
      <table className="table" data-testid="search-list">
        <caption className="sr-only">{t("search.caption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("search.col.ref")}</th>
            <th scope="col">{t("search.col.name")}</th>
            <th scope="col">{t("search.col.branch")}</th>
            <th scope="col">{t("search.col.hospital")}</th>
            <th scope="col">{t("search.col.photoDate")}</th>
            <th scope="col">{t("search.col.review")}</th>
            <th scope="col">{t("search.col.photos")}</th>
            <th scope="col">{t("search.col.matched")}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((h) => (
            <tr key={h.id}>
              <td>
                <Link to={`/bodies/${h.id}`} dir="ltr">
                  {h.ref}
                </Link>
              </td>
              <td dir="auto">{name(h) ?? "—"}</td>
              <td dir="ltr">{h.branchNo ?? "—"}</td>
              <td dir="auto">{h.hospital ? hospitalName(h.hospital) : "—"}</td>
              <td>{h.photoDate ? fmt.wallDate(h.photoDate) : "—"}</td>
              <td>{t(`search.values.review.${h.reviewStatus}`, { defaultValue: h.reviewStatus })}</td>
              <td>{fmt.num(h.photos)}</td>
              <td>
                <Matched hit={h} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Grid({ items }: { items: SearchHit[] }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <ul className="search-grid" data-testid="search-grid" aria-label={t("search.gridLabel")}>
      {items.map((h) => (
        <li key={h.id}>
          <Link to={`/bodies/${h.id}`}>
            {h.coverPhoto ? (
              <img src={api.blurredUrl(h.coverPhoto)} alt="" loading="lazy" decoding="async" width={160} height={160} draggable={false} />
            ) : (
              <span className="search-noimage">{t("search.noPhoto")}</span>
            )}
            <span className="search-tile-caption">
              <span dir="ltr">{h.ref}</span> · {t("search.photoCount", { n: fmt.num(h.photos) })}
              {name(h) && (
                <span className="search-tile-name" dir="auto">
                  {name(h)}
                </span>
              )}
              {h.matchedNumbers.length > 0 && (
                <Matched hit={h} />
              )}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** The numbers a hit was found by: each as transcribed, with its role, marked, and whether a second person checked it. */
function Matched({ hit }: { hit: SearchHit }) {
  const { t } = useTranslation();
  if (hit.matchedNumbers.length === 0) return <>—</>;
  return (
    <ul className="plain search-matched" data-testid="matched-numbers">
      {hit.matchedNumbers.map((n, i) => (
        <li key={i} data-role={n.role} data-checked={n.checked ? "yes" : "no"}>
          {t(`catalogue.numbers.roles.${n.role}`, { defaultValue: n.role })}{" "}
          <mark dir="ltr">{n.value}</mark> ({n.checked ? t("search.matched.checked") : t("search.matched.unchecked")})
        </li>
      ))}
    </ul>
  );
}
