import { useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { ApiError } from "../../api/client.ts";
import type { FacetName, SearchResult } from "../../api/types/search.ts";
import { Link, navigate, useLocation } from "../../app/router.tsx";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import type { ScreenProps } from "../../app/screens.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { searchApi } from "./api.ts";
import { Facets } from "./Facets.tsx";
import { Results } from "./Results.tsx";
import { termLabel } from "./labels.ts";
import { hrefOf, readState, resultKey, SORTS, toggled, type SearchState, type Sort, type View } from "./url.ts";
import "./search.css";

/**
 * One search box over the body records, facets with counts, results as a list or a grid, a page at a time.
 * The URL is the state: typing replaces it (after a short pause, so the history does not fill with letters),
 * Enter, a facet, the view and a page push it, so back and forward retrace the search and a copied link
 * shows the same results. Arabic is matched through the server's normalisation (hamza, taa marbuta, alef
 * maqsura, diacritics, tatweel, Arabic-Indic digits); what was typed is shown as typed.
 */
const PAGE = 60;
const PAUSE_MS = 150;

export function Search(_props: ScreenProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const { href, search } = useLocation();
  // `search` is a new object on every render; the URL string is what changes.
  const state = useMemo(() => readState(search), [href]);
  const key = resultKey(state);
  const [text, setText] = useState(state.q);
  const [shown, setShown] = useState<{ key: string; q: string; data: SearchResult } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const stateRef = useRef(state);
  stateRef.current = state;

  // Back, forward or a pasted link changed the query: the box follows (unless a pause is pending).
  useEffect(() => {
    if (timer.current === undefined) setText(state.q);
  }, [state.q]);

  useEffect(() => {
    const ac = new AbortController();
    setLoading(true);
    searchApi
      .search(state, PAGE, ac.signal)
      .then((data) => {
        setShown({ key, q: state.q, data });
        setError(null);
        setLoading(false);
      })
      .catch((e: unknown) => {
        if (ac.signal.aborted || (e instanceof DOMException && e.name === "AbortError")) return;
        setError(e);
        setLoading(false);
      });
    return () => ac.abort();
  }, [key]);

  const go = (s: SearchState, replace = false) => navigate(hrefOf(s), { replace });

  const onType = (v: string) => {
    setText(v);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = undefined;
      go({ ...stateRef.current, q: v, after: null }, true);
    }, PAUSE_MS);
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    clearTimeout(timer.current);
    timer.current = undefined;
    go({ ...stateRef.current, q: text, after: null });
  };
  useEffect(() => () => clearTimeout(timer.current), []);

  const data = shown?.data;
  const hospitals = useMemo(() => new Map((data?.facets.hospital ?? []).map((b) => [b.value, termLabel(b, lang)])), [data, lang]);
  const hospitalName = (code: string | null) => hospitals.get(code) ?? code ?? "";
  const chosen = Object.values(state.filters).some((v) => v.length > 0);
  const badQuery = error instanceof ApiError && error.field === "q";

  return (
    <section aria-labelledby="search-title" className="search">
      <div className="screen-head">
        <h1 id="search-title">{t("search.title")}</h1>
      </div>
      <form role="search" className="search-box" onSubmit={onSubmit} aria-label={t("search.formLabel")}>
        <label htmlFor="search-q">{t("search.label")}</label>
        <input
          id="search-q"
          type="search"
          dir="auto"
          value={text}
          autoComplete="off"
          spellCheck={false}
          aria-describedby="search-hint"
          aria-invalid={badQuery || undefined}
          onChange={(e) => onType(e.target.value)}
        />
        <button type="submit">{t("search.submit")}</button>
      </form>
      <p className="muted small" id="search-hint">
        {t("search.hint")}
      </p>
      <ErrorNote error={error} />
      <div className="search-layout">
        <aside aria-label={t("search.facetsLabel")}>
          {data && <Facets facets={data.facets} chosen={state.filters} onToggle={(f: FacetName, v: string) => go(toggled(state, f, v))} />}
          {chosen && (
            <p>
              <Link to={hrefOf({ ...state, filters: readState(new URLSearchParams()).filters, after: null })}>{t("search.clearFacets")}</Link>
            </p>
          )}
        </aside>
        <div className="search-results" aria-busy={loading} data-testid="search-results" data-key={shown?.key ?? ""} data-q={shown?.q ?? ""} data-total={data?.total ?? ""}>
          <div className="search-bar">
            <p role="status" data-testid="search-total" className="search-total">
              {data ? t("search.count", { n: fmt.num(data.total), count: data.total }) : t("app.loading")}
            </p>
            <label className="search-sort">
              {t("search.sort")}{" "}
              <select value={state.sort} onChange={(e) => go({ ...state, sort: e.target.value as Sort, after: null })}>
                {SORTS.map((s) => (
                  <option key={s} value={s}>
                    {t(`search.sorts.${s.replace("-", "desc_")}`)}
                  </option>
                ))}
              </select>
            </label>
            <div role="group" aria-label={t("search.viewLabel")} className="search-views">
              {(["list", "grid"] as View[]).map((v) => (
                <button key={v} type="button" aria-pressed={state.view === v} onClick={() => go({ ...state, view: v })}>
                  {t(`search.views.${v}`)}
                </button>
              ))}
            </div>
          </div>
          {data && data.total === 0 && <p>{t("search.none")}</p>}
          {data && data.items.length > 0 && <Results items={data.items} view={state.view} hospitalName={hospitalName} />}
          {data && (state.after || data.next) && (
            <nav aria-label={t("search.pages")} className="search-pager">
              {state.after && <Link to={hrefOf({ ...state, after: null })}>{t("search.firstPage")}</Link>}
              {data.next && (
                <Link to={hrefOf({ ...state, after: data.next })} rel="next">
                  {t("search.nextPage")}
                </Link>
              )}
            </nav>
          )}
        </div>
      </div>
    </section>
  );
}
