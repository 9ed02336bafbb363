/**
 * Names of files a person downloads, made from a record's title: what the title says, in its own script (Arabic
 * kept), without the characters file systems refuse or treat specially (/ \ : * ? " < > |, control characters),
 * without leading or trailing dots and spaces, at most 120 characters; and the HTTP header that carries it (RFC 6266
 * with an RFC 8187 UTF-8 `filename*` and an ASCII `filename` for old clients).
 */
const FORBIDDEN = /[/\\:*?"<>|\p{Cc}\p{Cf}]+/gu;

export function safeFileName(title: string, fallback = "dossier"): string {
  const cleaned = title.normalize("NFC").replace(FORBIDDEN, " ").replace(/\s+/gu, " ").trim().replace(/^[.\s]+|[.\s]+$/gu, "");
  const cut = [...cleaned].slice(0, 120).join("").trim();
  // Windows' reserved device names (CON, NUL, COM1…) are not names a folder can hold.
  if (cut === "" || /^(con|prn|aux|nul|com\d|lpt\d)$/i.test(cut)) return fallback;
  return cut;
}

export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
