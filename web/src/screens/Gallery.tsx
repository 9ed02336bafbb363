import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import { useVirtualizer } from "@tanstack/react-virtual";
import { api } from "../api/client.ts";
import type { GalleryItem } from "../api/types.ts";
import { Link, navigate, useLocation } from "../app/router.tsx";
import { filterQuery, filtersOf, photoInGallery, type Filters } from "./browse/filters.ts";
import { GalleryFilters } from "./browse/GalleryFilters.tsx";
import { useFormat, usePrefs } from "../app/prefs.tsx";
import { ErrorNote } from "../components/ErrorNote.tsx";
import { shortcut } from "../components/shortcut.ts";
import type { ScreenProps } from "../app/screens.ts";

/**
 * Every photograph, blurred, in a virtualised grid: only the rows in view (and a few around them) exist in the
 * page, and pages of the list are fetched by offset as they come into view, so 55,000 photographs scroll like
 * fifty. Keyboard: arrow keys move between photographs (mirrored in Arabic), Page Up/Down by a screen,
 * Home/End to the row's ends, Ctrl+Home/End to the first and last; Enter opens one.
 */
const PAGE = 200;
const MIN_TILE = 150;
const GAP = 8;
const CAPTION = 44;

export function Gallery(_props: ScreenProps) {
  const { t } = useTranslation();
  const { search } = useLocation();
  const filters = filtersOf(search);
  const key = filterQuery(filters);
  return (
    <section className="gallery" aria-labelledby="gallery-title">
      <div className="screen-head">
        <h1 id="gallery-title">{t("gallery.title")}</h1>
      </div>
      <GalleryFilters filters={filters} />
      {/* A new list for each choice of filters: its pages, its total, its place. */}
      <GalleryGrid key={key} filters={filters} />
    </section>
  );
}

function GalleryGrid({ filters }: { filters: Filters }) {
  const { t } = useTranslation();
  // The filters are fixed for this list: a new choice mounts a new one.
  const fixed = useRef(filters);
  const fmt = useFormat();
  const { lang } = usePrefs();
  const scrollRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const pages = useRef(new Map<number, GalleryItem[]>());
  const inflight = useRef(new Set<number>());
  const [, setVersion] = useState(0);
  const [active, setActive] = useState(0);
  // While the keyboard moves through the grid, the active tile keeps focus: a tile can be unmounted and mounted
  // again as the virtualiser settles after a long jump (Ctrl+End), and focus would otherwise fall to the page.
  const keyboardFocus = useRef(false);

  const gridRef = useRef<HTMLDivElement>(null);
  // The grid's own width (inside the scroller's padding and scrollbar) decides how many columns fit.
  useLayoutEffect(() => {
    const el = gridRef.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);

  const cols = Math.max(2, Math.floor((width + GAP) / (MIN_TILE + GAP)));
  const tile = width > 0 ? Math.floor((width - GAP * (cols - 1)) / cols) : MIN_TILE;
  const rowHeight = tile + CAPTION + GAP;
  const count = total ?? 0;
  const rows = Math.ceil(count / cols);

  const virtualizer = useVirtualizer({
    count: rows,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 3,
  });
  useEffect(() => virtualizer.measure(), [rowHeight, virtualizer]);

  const load = useCallback(async (page: number, attempt = 0): Promise<void> => {
    if (pages.current.has(page) || inflight.current.has(page)) return;
    inflight.current.add(page);
    let retry = false;
    try {
      const r = await api.gallery(page * PAGE, PAGE, fixed.current as Record<string, string>);
      pages.current.set(page, r.items);
      setTotal(r.total);
      setVersion((v) => v + 1);
    } catch (e) {
      // A busy server or a field link drops a request now and then: a page the grid needs is asked for again
      // (three times, backing off) before the error is shown; otherwise its tiles would wait for ever.
      retry = attempt < 3;
      if (!retry) setError(e);
    } finally {
      inflight.current.delete(page);
    }
    if (retry) setTimeout(() => void load(page, attempt + 1), 400 * 2 ** attempt);
  }, []);

  useEffect(() => {
    void load(0);
  }, [load]);

  const virtualRows = virtualizer.getVirtualItems();
  // Faster than about a screen a second: a fling, not reading.
  const lastScroll = useRef({ at: 0, offset: 0 });
  const [fast, setFast] = useState(false);
  const offset = virtualizer.scrollOffset ?? 0;
  useEffect(() => {
    const now = performance.now();
    const { at, offset: before } = lastScroll.current;
    lastScroll.current = { at: now, offset };
    const speed = Math.abs(offset - before) / Math.max(1, now - at);
    const el = scrollRef.current;
    setFast(virtualizer.isScrolling && speed * 1000 > (el?.clientHeight ?? 800));
    if (!virtualizer.isScrolling) setFast(false);
  }, [offset, virtualizer.isScrolling]);
  const seen = useRef(seenImages);
  const firstRow = virtualRows[0]?.index ?? 0;
  const lastRow = virtualRows[virtualRows.length - 1]?.index ?? 0;

  // Fetch the pages that cover the rows in view, once scrolling pauses for a moment (a fast fling does not
  // fetch every page it passes).
  useEffect(() => {
    if (total === null) return;
    const from = Math.floor((firstRow * cols) / PAGE);
    const to = Math.floor(Math.min(count - 1, (lastRow + 1) * cols - 1) / PAGE);
    const timer = setTimeout(() => {
      for (let p = from; p <= to; p++) void load(p);
    }, 60);
    return () => clearTimeout(timer);
  }, [firstRow, lastRow, cols, count, total, load]);

  const itemAt = (i: number): GalleryItem | undefined => pages.current.get(Math.floor(i / PAGE))?.[i % PAGE];

  const move = (to: number) => {
    const next = Math.max(0, Math.min(count - 1, to));
    setActive(next);
    keyboardFocus.current = true;
    virtualizer.scrollToIndex(Math.floor(next / cols), { align: "auto" });
  };

  useEffect(() => {
    if (!keyboardFocus.current) return;
    const el = scrollRef.current?.querySelector<HTMLAnchorElement>(`a[data-index="${active}"]`);
    if (el && document.activeElement !== el) el.focus({ preventScroll: true });
  });

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const forward = lang === "ar" ? "ArrowLeft" : "ArrowRight";
    const back = lang === "ar" ? "ArrowRight" : "ArrowLeft";
    const perScreen = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? rowHeight) / rowHeight)) * cols;
    const rowStart = active - (active % cols);
    const keys: Record<string, number> = {
      [forward]: active + 1,
      [back]: active - 1,
      ArrowDown: active + cols,
      ArrowUp: active - cols,
      PageDown: active + perScreen,
      PageUp: active - perScreen,
      Home: e.ctrlKey ? 0 : rowStart,
      End: e.ctrlKey ? count - 1 : Math.min(count - 1, rowStart + cols - 1),
    };
    const to = keys[e.key];
    if (to === undefined) return;
    e.preventDefault();
    move(to);
  };

  return (
    <>
      {total !== null && (
        <p className="muted" data-testid="gallery-total" aria-live="polite">
          {t("gallery.count", { n: fmt.num(total), count: total })}
        </p>
      )}
      <p className="muted small" id="gallery-help">
        {t("gallery.blurredNote")} {t("gallery.keys")}
      </p>
      <ErrorNote error={error} />
      {total === 0 && <p>{Object.keys(filters).length ? t("browse.filters.none") : t("gallery.empty")}</p>}
      <div className="gallery-scroll" ref={scrollRef} data-testid="gallery-scroll">
        <div
          ref={gridRef}
          role="list"
          aria-label={t("gallery.listLabel")}
          aria-describedby="gallery-help"
          className="gallery-grid"
          style={{ height: virtualizer.getTotalSize() }}
          onKeyDown={onKeyDown}
          // Focus the user takes elsewhere (a click, Tab out) ends keyboard navigation; an unmounted tile does not.
          onBlur={(e) => {
            if (e.relatedTarget && !e.currentTarget.contains(e.relatedTarget)) keyboardFocus.current = false;
          }}
          data-total={count}
        >
          {virtualRows.flatMap((row) => {
            const cells = [];
            for (let c = 0; c < cols; c++) {
              const i = row.index * cols + c;
              if (i >= count) break;
              const item = itemAt(i);
              cells.push(
                <Tile
                  key={i}
                  index={i}
                  count={count}
                  item={item}
                  top={row.start}
                  start={c * (tile + GAP)}
                  size={tile}
                  active={i === active}
                  // While the grid flies past, tiles not seen before wait for their image until it slows down.
                  showImage={!fast || (item !== undefined && seen.current.has(item.sha256))}
                  onFocusTile={setActive}
                  filters={filters}
                />,
              );
            }
            return cells;
          })}
        </div>
      </div>
    </>
  );
}

interface TileProps {
  index: number;
  count: number;
  item: GalleryItem | undefined;
  top: number;
  start: number;
  size: number;
  active: boolean;
  showImage: boolean;
  onFocusTile: (i: number) => void;
  filters: Filters;
}

/** One photograph in the grid; re-rendered only when something about it changes. */
const Tile = memo(function Tile({ index, count, item, top, start, size, active, showImage, onFocusTile, filters }: TileProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const to = item ? photoInGallery(item.sha256, index, filters) : "";
  return (
    <div role="listitem" aria-setsize={count} aria-posinset={index + 1} className="tile" style={{ top, insetInlineStart: start, width: size, height: size + CAPTION }}>
      {item ? (
        <Link
          to={to}
          data-index={index}
          tabIndex={active ? 0 : -1}
          onFocus={() => onFocusTile(index)}
          onKeyDown={(e) => {
            if (shortcut(e) === " ") {
              e.preventDefault();
              navigate(to);
            }
          }}
        >
          {item.blurred && showImage ? (
            <img src={api.blurredUrl(item.sha256)} alt="" width={size} height={size} decoding="async" fetchPriority="low" draggable={false} onLoad={() => seenImages.add(item.sha256)} />
          ) : item.blurred ? (
            <span className="tile-loading" style={{ width: size, height: size }} />
          ) : (
            <span className="no-image" style={{ width: size, height: size }}>
              {item.format.toUpperCase()}
            </span>
          )}
          <span className="tile-caption">
            <span className="sr-only">{t("gallery.tileLabel", { n: fmt.num(index + 1), total: fmt.num(count) })} </span>
            {item.status === "quarantined" && <span className="badge badge-warn">{t("status.quarantined")}</span>}{" "}
            {item.captureTime ? fmt.wallDate(item.captureTime) : t("gallery.noDate")}
          </span>
        </Link>
      ) : (
        <span className="tile-loading" data-index={index} style={{ width: size, height: size }}>
          <span className="sr-only">{t("app.loading")}</span>
        </span>
      )}
    </div>
  );
});

/** Images already shown once: the browser has them, so they come back at once even mid-fling. */
const seenImages = new Set<string>();
