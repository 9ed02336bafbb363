import { Invalid } from "../core/errors.ts";
import { say } from "../core/messages.ts";

/**
 * CSV per RFC 4180, small and strict where it matters: fields separated by a delimiter, records by CRLF or LF,
 * fields in double quotes may hold delimiters, quotes (doubled) and line breaks. A UTF-8 byte-order mark is
 * dropped. The delimiter is read from the header line: "," unless the header holds none and holds ";" or a tab
 * (spreadsheets in many locales save with ";").
 */
export interface CsvTable {
  header: string[];
  /** Data records, each with the 1-based row number a spreadsheet shows (the header is row 1). */
  records: { row: number; line: number; fields: string[] }[];
  delimiter: string;
}

export function parseCsv(input: string): CsvTable {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const delimiter = firstLine.includes(",") ? "," : firstLine.includes(";") ? ";" : firstLine.includes("\t") ? "\t" : ",";
  const rows: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let rowLine = 1;
  let i = 0;
  let quoted = false;
  let fieldStarted = false;
  const n = text.length;
  const endField = () => {
    fields.push(field);
    field = "";
    fieldStarted = false;
  };
  const endRow = () => {
    endField();
    // A blank line between records is not a record (spreadsheets add one at the end).
    if (!(fields.length === 1 && fields[0] === "")) rows.push({ line: rowLine, fields });
    fields = [];
  };
  while (i < n) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        const next = text[i];
        if (next !== undefined && next !== delimiter && next !== "\r" && next !== "\n") {
          throw new Invalid(say("csv.afterQuote", { line, next }));
        }
        continue;
      }
      if (c === "\n") line++;
      field += c;
      i++;
      continue;
    }
    if (c === '"' && !fieldStarted && field === "") {
      quoted = true;
      fieldStarted = true;
      i++;
      continue;
    }
    if (c === delimiter) {
      endField();
      i++;
      continue;
    }
    if (c === "\r" || c === "\n") {
      endRow();
      i += c === "\r" && text[i + 1] === "\n" ? 2 : 1;
      line++;
      rowLine = line;
      continue;
    }
    if (c === '"') throw new Invalid(say("csv.quoteInside", { line }));
    field += c;
    fieldStarted = true;
    i++;
  }
  if (quoted) throw new Invalid(say("csv.quoteOpen", { line: rowLine }));
  if (field !== "" || fields.length > 0) endRow();
  const [head, ...rest] = rows;
  if (!head) throw new Invalid(say("csv.empty"));
  return {
    header: head.fields.map((h) => h.trim()),
    records: rest.map((r, k) => ({ row: k + 2, line: r.line, fields: r.fields })),
    delimiter,
  };
}

function quote(v: string): string {
  return /[",\r\n]|^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Records as RFC 4180 text: CRLF line ends, fields quoted when they must be; optionally with a BOM (Excel). */
export function writeCsv(rows: string[][], opts: { bom?: boolean } = {}): string {
  const body = rows.map((r) => r.map(quote).join(",")).join("\r\n");
  return `${opts.bom ? "\ufeff" : ""}${body}\r\n`;
}

// Spreadsheets run a cell that starts with one of these as a formula. Exported cells get a leading apostrophe,
// which spreadsheets hide, and imports take it off again: data round-trips, formulas never run.
const FORMULA_START = /^[=+\-@\t\r]/;

export function protectCell(v: string): string {
  return FORMULA_START.test(v) ? `'${v}` : v;
}

export function unprotectCell(v: string): string {
  return v.startsWith("'") && FORMULA_START.test(v.slice(1)) ? v.slice(1) : v;
}
