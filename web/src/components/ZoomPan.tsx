import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { useFormat } from "../app/prefs.tsx";
import { shortcut } from "./shortcut.ts";

/**
 * An image to examine: zoom with the buttons, the wheel (around the pointer) or + and −; pan by dragging or with
 * the arrow keys once the image has focus; 0 resets. The transform is applied through the style object (CSSOM),
 * which the page's Content-Security-Policy allows, unlike inline style attributes.
 */
const MIN = 1;
const MAX = 8;
const STEP = 1.25;
const PAN = 40;

/**
 * `overlay` (regions a reviewer draws, src/screens/review) is laid exactly over the image's box and moves and
 * zooms with it; its own pointer handlers may stop propagation to draw instead of pan.
 */
export function ZoomPan({ src, alt, label, width, height, overlay }: { src: string; alt: string; label: string; width: number | null; height: number | null; overlay?: ReactNode }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [scale, setScale] = useState(1);
  const [x, setX] = useState(0);
  const [y, setY] = useState(0);
  const drag = useRef<{ id: number; x: number; y: number } | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const img = useRef<HTMLImageElement>(null);
  const [imgBox, setImgBox] = useState<{ left: number; top: number; width: number; height: number } | null>(null);
  // The image's untransformed box (offset* ignore transforms), so the overlay takes the same transform.
  const measure = useCallback(() => {
    const el = img.current;
    if (el) setImgBox({ left: el.offsetLeft, top: el.offsetTop, width: el.offsetWidth, height: el.offsetHeight });
  }, []);
  const hasOverlay = overlay !== undefined;
  useEffect(() => {
    if (!hasOverlay || !box.current) return;
    const ro = new ResizeObserver(measure);
    ro.observe(box.current);
    return () => ro.disconnect();
  }, [hasOverlay, measure]);

  const zoomTo = useCallback((next: number, cx = 0, cy = 0) => {
    setScale((s) => {
      const n = Math.min(MAX, Math.max(MIN, next));
      if (n === MIN) {
        setX(0);
        setY(0);
      } else {
        // Keep the point under the pointer where it is.
        setX((px) => cx - ((cx - px) * n) / s);
        setY((py) => cy - ((cy - py) * n) / s);
      }
      return n;
    });
  }, []);

  const scaleRef = useRef(scale);
  scaleRef.current = scale;
  // A native, non-passive listener: the wheel zooms the image instead of scrolling the page.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const r = el.getBoundingClientRect();
      const cx = e.clientX - r.left - r.width / 2;
      const cy = e.clientY - r.top - r.height / 2;
      zoomTo(e.deltaY < 0 ? scaleRef.current * STEP : scaleRef.current / STEP, cx, cy);
    };
    el.addEventListener("wheel", onWheel, { passive: false });
    return () => el.removeEventListener("wheel", onWheel);
  }, [zoomTo]);
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (scale === 1) return;
    drag.current = { id: e.pointerId, x: e.clientX - x, y: e.clientY - y };
    e.currentTarget.setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d || d.id !== e.pointerId) return;
    setX(e.clientX - d.x);
    setY(e.clientY - d.y);
  };
  const onPointerUp = () => {
    drag.current = null;
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, [number, number]> = { ArrowLeft: [PAN, 0], ArrowRight: [-PAN, 0], ArrowUp: [0, PAN], ArrowDown: [0, -PAN] };
    const m = moves[e.key];
    const k = shortcut(e);
    if (m && scale > 1) {
      e.preventDefault();
      setX((v) => v + m[0]);
      setY((v) => v + m[1]);
    } else if (k === "+" || k === "=") {
      e.preventDefault();
      zoomTo(scale * STEP);
    } else if (k === "-") {
      e.preventDefault();
      zoomTo(scale / STEP);
    } else if (k === "0") {
      e.preventDefault();
      zoomTo(1);
    }
  };

  return (
    <div className="zoompan">
      <div className="zoom-controls" role="toolbar" aria-label={t("viewer.zoomTools")}>
        <button type="button" onClick={() => zoomTo(scale / STEP)} disabled={scale <= MIN} aria-label={t("viewer.zoomOut")}>
          −
        </button>
        <output aria-live="polite" aria-label={t("viewer.zoomLevel")}>{fmt.percent(scale)}</output>
        <button type="button" onClick={() => zoomTo(scale * STEP)} disabled={scale >= MAX} aria-label={t("viewer.zoomIn")}>
          +
        </button>
        <button type="button" onClick={() => zoomTo(1)} disabled={scale === 1}>
          {t("viewer.zoomReset")}
        </button>
      </div>
      <div
        ref={box}
        className={`zoom-viewport${scale > 1 ? " zoomed" : ""}`}
        tabIndex={0}
        role="group"
        aria-label={label}
        aria-describedby="zoom-help"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        onKeyDown={onKeyDown}
      >
        <img
          ref={img}
          onLoad={hasOverlay ? measure : undefined}
          src={src}
          alt={alt}
          draggable={false}
          width={width ?? undefined}
          height={height ?? undefined}
          style={{ transform: `translate(${x}px, ${y}px) scale(${scale})` }}
        />
        {hasOverlay && imgBox && (
          <div
            className="zoom-overlay"
            style={{ position: "absolute", left: imgBox.left, top: imgBox.top, width: imgBox.width, height: imgBox.height, transform: `translate(${x}px, ${y}px) scale(${scale})`, transformOrigin: "center" }}
          >
            {overlay}
          </div>
        )}
      </div>
      <p id="zoom-help" className="muted small">
        {t("viewer.zoomHelp")}
      </p>
    </div>
  );
}
