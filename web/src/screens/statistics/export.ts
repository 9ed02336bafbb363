/**
 * Exports of the figures as files: CSV (the numbers, in Latin digits, for a spreadsheet), SVG (the chart as
 * drawn) and PNG (the SVG painted on a canvas at twice its size, for documents that take no SVG).
 */
export interface CsvRow {
  breakdown: string;
  value: string;
  label: string;
  /** null: withheld. */
  count: number | null;
}

function cell(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180 text with a byte-order mark, so spreadsheets read the Arabic labels as UTF-8. */
export function toCsv(rows: CsvRow[]): string {
  const lines = ["breakdown,value,label,count,withheld"];
  for (const r of rows) lines.push([r.breakdown, r.value, r.label, r.count === null ? "" : String(r.count), r.count === null ? "yes" : "no"].map(cell).join(","));
  return `\ufeff${lines.join("\r\n")}\r\n`;
}

export function download(name: string, data: Blob): void {
  const url = URL.createObjectURL(data);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The chart as a standalone SVG file (its styles are attributes, so it looks the same outside the page). */
export function svgText(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}`;
}

export async function svgToPng(svg: SVGSVGElement, scale = 2): Promise<Blob> {
  const width = svg.viewBox.baseVal.width || svg.clientWidth;
  const height = svg.viewBox.baseVal.height || svg.clientHeight;
  const url = URL.createObjectURL(new Blob([svgText(svg)], { type: "image/svg+xml" }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = Math.ceil(width * scale);
    canvas.height = Math.ceil(height * scale);
    const g = canvas.getContext("2d");
    if (!g) throw new Error("no canvas");
    g.fillStyle = "#ffffff";
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("no PNG"))), "image/png"));
  } finally {
    URL.revokeObjectURL(url);
  }
}
