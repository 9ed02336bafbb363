import { useRef, useState, type PointerEvent } from "react";
import { useTranslation } from "react-i18next";
import type { Region } from "../../api/types/review.ts";

/**
 * The layer a reviewer draws on, laid over the photo by ZoomPan (so it zooms and pans with it). Coordinates are
 * unit image coordinates, (0,0) top left and (1,1) bottom right, whatever the zoom: the SVG's viewBox is the
 * unit square stretched over the image. A rectangle is a press-drag-release; a polygon is a click per corner,
 * closed by a double click (or the "finish" button beside the image). Pointer events stop here, so drawing
 * does not pan; panning while drawing is by the arrow keys or after switching the tool off.
 */
export type Tool = "rect" | "polygon" | "pan";

export interface ShownRegion {
  region: Region;
  /** Which finding it belongs to (its colour) and whether that finding is the one being edited. */
  finding: number;
  active: boolean;
  label: string;
}

const MIN_SIDE = 0.005;
const clamp = (v: number) => Math.min(1, Math.max(0, v));
const round = (v: number) => Math.round(v * 10000) / 10000;

export function unitRect(a: [number, number], b: [number, number]): { x: number; y: number; w: number; h: number } {
  const x = Math.min(a[0], b[0]);
  const y = Math.min(a[1], b[1]);
  return { x: round(x), y: round(y), w: round(Math.abs(b[0] - a[0])), h: round(Math.abs(b[1] - a[1])) };
}

export function RegionCanvas({ tool, regions, points, onPoints, onRect, onClose }: {
  tool: Tool;
  regions: ShownRegion[];
  /** The polygon being drawn. */
  points: [number, number][];
  onPoints: (points: [number, number][]) => void;
  onRect: (r: { x: number; y: number; w: number; h: number }) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const svg = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<{ id: number; from: [number, number]; to: [number, number] } | null>(null);

  const at = (e: PointerEvent<SVGSVGElement>): [number, number] => {
    const r = svg.current!.getBoundingClientRect();
    return [clamp((e.clientX - r.left) / r.width), clamp((e.clientY - r.top) / r.height)];
  };
  const drawing = tool !== "pan";

  const onDown = (e: PointerEvent<SVGSVGElement>) => {
    if (!drawing || e.button !== 0) return;
    e.stopPropagation();
    e.preventDefault();
    if (tool === "rect") {
      e.currentTarget.setPointerCapture(e.pointerId);
      const p = at(e);
      setDrag({ id: e.pointerId, from: p, to: p });
    } else {
      // The second press of a double click lands where the first did: one corner, not two.
      const p: [number, number] = [round(at(e)[0]), round(at(e)[1])];
      const last = points[points.length - 1];
      if (!last || Math.abs(last[0] - p[0]) > 0.003 || Math.abs(last[1] - p[1]) > 0.003) onPoints([...points, p]);
    }
  };
  const onMove = (e: PointerEvent<SVGSVGElement>) => {
    if (!drag || drag.id !== e.pointerId) return;
    e.stopPropagation();
    setDrag({ ...drag, to: at(e) });
  };
  const onUp = (e: PointerEvent<SVGSVGElement>) => {
    if (!drag || drag.id !== e.pointerId) return;
    e.stopPropagation();
    const r = unitRect(drag.from, at(e));
    setDrag(null);
    if (r.w >= MIN_SIDE && r.h >= MIN_SIDE) onRect(r);
  };

  const live = drag ? unitRect(drag.from, drag.to) : null;
  return (
    <svg
      ref={svg}
      className={`region-canvas${drawing ? " drawing" : ""}`}
      viewBox="0 0 1 1"
      preserveAspectRatio="none"
      role="img"
      aria-label={t("review.canvasLabel", { n: regions.length })}
      data-testid="region-canvas"
      onPointerDown={onDown}
      onPointerMove={onMove}
      onPointerUp={onUp}
      onPointerCancel={() => setDrag(null)}
      onDoubleClick={(e) => {
        if (tool !== "polygon") return;
        e.stopPropagation();
        onClose();
      }}
    >
      {regions.map((s, i) =>
        s.region.shape === "rect" ? (
          <rect key={i} className={`region c${s.finding % 6}${s.active ? " active" : ""}`} x={s.region.x} y={s.region.y} width={s.region.w} height={s.region.h} vectorEffect="non-scaling-stroke">
            <title>{s.label}</title>
          </rect>
        ) : (
          <polygon key={i} className={`region c${s.finding % 6}${s.active ? " active" : ""}`} points={s.region.points.map((p) => p.join(",")).join(" ")} vectorEffect="non-scaling-stroke">
            <title>{s.label}</title>
          </polygon>
        ),
      )}
      {live && <rect className="region draft" x={live.x} y={live.y} width={live.w} height={live.h} vectorEffect="non-scaling-stroke" />}
      {points.length > 0 && <polyline className="region draft" points={points.map((p) => p.join(",")).join(" ")} vectorEffect="non-scaling-stroke" />}
    </svg>
  );
}
