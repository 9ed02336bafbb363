import "./browse.css";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../../api/client.ts";
import { Link, navigate, useLocation } from "../../app/router.tsx";
import { useFormat, usePrefs } from "../../app/prefs.tsx";
import { useSession } from "../../app/session.tsx";
import { useAsync } from "../../components/useAsync.ts";
import { catalogue } from "../catalogue/api.ts";
import { filterQuery, filtersOf, photoInBody, photoInGallery } from "./filters.ts";

/**
 * Where a photograph sits and the way to its neighbours: within the gallery list it was opened from (the same
 * filters, by its place in that list), or within its body (in the body's order; the photo's first body when the
 * viewer was opened elsewhere). Links to the body by its reference. Keys, matched on the physical key
 * (`event.code`) so they work on an Arabic layout: the arrow keys (mirrored in Arabic: ← is next), N and P for
 * next and previous, B for the body, G for the gallery list.
 */
interface Walk {
  prev: string | null;
  next: string | null;
  position: number;
  total: number;
}

export function PhotoNav({ sha256 }: { sha256: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { lang } = usePrefs();
  const session = useSession();
  const { search } = useLocation();
  const fromGallery = search.get("from") === "gallery";
  const at = Number(search.get("at") ?? "-1");
  const filters = filtersOf(search);
  const wantedBody = search.get("body");
  const bodies = useAsync(async () => (session.can("catalogue.read") ? (await catalogue.photoBodies(sha256)).bodies : []), [sha256]);
  const inGallery = useAsync(async (): Promise<Walk | null> => {
    if (!fromGallery || !(at >= 0)) return null;
    const from = Math.max(0, at - 1);
    const page = await api.gallery(from, at === 0 ? 2 : 3, filters as Record<string, string>);
    const i = at - from;
    // The list moved under us (a photo added, a filter's answer changed): no neighbours rather than wrong ones.
    if (page.items[i]?.sha256 !== sha256) return null;
    const prev = page.items[i - 1];
    const next = page.items[i + 1];
    return { prev: prev ? photoInGallery(prev.sha256, at - 1, filters) : null, next: next ? photoInGallery(next.sha256, at + 1, filters) : null, position: at + 1, total: page.total };
  }, [sha256, search.toString()]);

  const body = bodies.data ? (bodies.data.find((b) => b.ref === wantedBody) ?? bodies.data[0] ?? null) : null;
  let walk: Walk | null = inGallery.data ?? null;
  if (!fromGallery && body) {
    const i = body.photos.indexOf(sha256);
    const prev = body.photos[i - 1];
    const next = body.photos[i + 1];
    walk = { prev: prev ? photoInBody(prev, body.ref) : null, next: next ? photoInBody(next, body.ref) : null, position: i + 1, total: body.photos.length };
  }
  const galleryHref = `/gallery${filterQuery(filters) ? `?${filterQuery(filters)}` : ""}`;
  const bodyHref = body ? `/bodies/${encodeURIComponent(body.ref)}` : null;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const el = e.target instanceof Element ? e.target : null;
      // Typing, a dialog, or the image itself (its arrow keys pan) keep their keys.
      if (el?.closest("input, textarea, select, [contenteditable], dialog, [role=dialog]")) return;
      if (e.code.startsWith("Arrow") && el?.closest(".zoompan")) return;
      const forward = lang === "ar" ? "ArrowLeft" : "ArrowRight";
      const back = lang === "ar" ? "ArrowRight" : "ArrowLeft";
      let to: string | null | undefined;
      if (e.code === forward || e.code === "KeyN") to = walk?.next;
      else if (e.code === back || e.code === "KeyP") to = walk?.prev;
      else if (e.code === "KeyB") to = bodyHref;
      else if (e.code === "KeyG") to = galleryHref;
      else return;
      if (!to) return;
      e.preventDefault();
      navigate(to);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [walk?.next, walk?.prev, bodyHref, galleryHref, lang]);

  return (
    <nav className="photo-nav" aria-label={t("browse.viewer.navLabel")} data-testid="photo-nav">
      <Link to={fromGallery || !body ? galleryHref : (bodyHref ?? galleryHref)}>{fromGallery || !body ? t("viewer.back") : t("browse.viewer.backToBody", { ref: body.ref })}</Link>
      {walk && (
        <span className="photo-walk">
          {walk.prev ? (
            <Link to={walk.prev} rel="prev" data-testid="photo-prev">
              {t("browse.viewer.prev")}
            </Link>
          ) : (
            <span className="muted">{t("browse.viewer.prev")}</span>
          )}
          <span data-testid="photo-position">
            {fromGallery ? t("browse.viewer.positionGallery", { n: fmt.num(walk.position), total: fmt.num(walk.total) }) : t("browse.viewer.positionBody", { n: fmt.num(walk.position), total: fmt.num(walk.total), ref: body?.ref ?? "" })}
          </span>
          {walk.next ? (
            <Link to={walk.next} rel="next" data-testid="photo-next">
              {t("browse.viewer.next")}
            </Link>
          ) : (
            <span className="muted">{t("browse.viewer.next")}</span>
          )}
        </span>
      )}
      {bodies.data && bodies.data.length > 0 && (
        <span className="photo-bodies" data-testid="photo-bodies">
          {t("browse.viewer.inBody", { count: bodies.data.length })}{" "}
          {bodies.data.map((b, i) => (
            <span key={b.ref}>
              {i > 0 && ", "}
              <Link to={`/bodies/${encodeURIComponent(b.ref)}`} dir="ltr">
                {b.ref}
              </Link>
            </span>
          ))}
        </span>
      )}
      <span className="muted small">{t("browse.viewer.keys")}</span>
    </nav>
  );
}
