/** One labelled field of words in one language (a line, or a box with `rows`), written in that language's direction. */
export function WordsField({ id, lang, label, value, onChange, max, rows }: { id: string; lang: "ar" | "en"; label: string; value: string; onChange: (v: string) => void; max: number; rows?: number }) {
  const dir = lang === "ar" ? "rtl" : "ltr";
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {rows ? <textarea id={id} lang={lang} dir={dir} rows={rows} maxLength={max} value={value} onChange={(e) => onChange(e.target.value)} /> : <input id={id} lang={lang} dir={dir} maxLength={max} value={value} onChange={(e) => onChange(e.target.value)} />}
    </div>
  );
}
