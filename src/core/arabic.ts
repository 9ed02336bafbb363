/**
 * Arabic text for search and matching. Everything here produces *matching forms*: the raw string a person
 * typed is always what gets stored and displayed; these forms only decide what meets what.
 *
 * The folds are the ones Arabic writers themselves treat as the same word (hamza seats, alef forms, taa
 * marbuta/ha, alef maqsura/ya, vowel marks, tatweel) plus the invisible characters that copy-and-paste
 * drags in (bidi marks, zero-width joiners). SQLite FTS5's own diacritic folding does not cover Arabic, so
 * search indexes store `searchText()` and queries go through `searchTokens()`: the same code on SQLite and
 * PostgreSQL, hence the same results.
 */

const ARABIC_INDIC_ZERO = 0x0660;
const PERSIAN_ZERO = 0x06f0;

/** ٠-٩ (Arabic-Indic) and ۰-۹ (Persian/Urdu) → 0-9; every other character unchanged. */
export function toLatinDigits(s: string): string {
  return s.replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (d) => {
    const c = d.charCodeAt(0);
    return String(c >= PERSIAN_ZERO ? c - PERSIAN_ZERO : c - ARABIC_INDIC_ZERO);
  });
}

/** True when the string holds at least one Arabic-script letter (digits and punctuation do not count). */
export function hasArabic(s: string): boolean {
  return /(?=\p{Script=Arabic})\p{L}/u.test(s);
}

// Format controls that change nothing a reader sees: soft hyphen, Arabic letter mark, tatweel, Mongolian
// vowel separator, zero-width space/joiners, LRM/RLM, bidi embeddings/overrides/isolates, word joiner,
// invisible operators, deprecated format characters, BOM; plus Arabic number signs and the end-of-ayah mark.
const INVISIBLE = /[\u00ad\u061c\u0640\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\u0600-\u0605\u06dd]/g;

// Combining marks (harakat, tanwin, shadda, sukun, maddah, hamza above/below, superscript alef, Quranic
// annotation signs; and Latin accents once decomposed). Plus letters that only ever carry a mark's job:
// high hamza U+0674 (left behind by the compatibility decomposition of ٵ ٶ ٷ ٸ) and small waw/yeh.
const MARKS = /[\p{Mn}\p{Me}\u0674\u06e5\u06e6]/gu;

// After NFKD and mark removal, the letters that still differ only in spelling convention.
const LETTER_FOLD: Record<string, string> = {
  "\u0671": "\u0627", // ٱ alef wasla → ا
  "\u0672": "\u0627", // ٲ alef with wavy hamza above
  "\u0673": "\u0627", // ٳ alef with wavy hamza below
  "\u0649": "\u064a", // ى alef maqsura → ي
  "\u06cc": "\u064a", // ی Farsi yeh → ي
  "\u06d2": "\u064a", // ے yeh barree → ي
  "\u0629": "\u0647", // ة taa marbuta → ه
  "\u06c3": "\u0647", // ۃ taa marbuta goal → ه
  "\u06d5": "\u0647", // ە ae (what ۀ leaves after its hamza goes) → ه
  "\u06c1": "\u0647", // ہ heh goal → ه
  "\u06be": "\u0647", // ھ heh doachashmee → ه
  "\u06a9": "\u0643", // ک keheh → ك
  "\u060c": ",", // ، Arabic comma
  "\u061b": ";", // ؛ Arabic semicolon
  "\u061f": "?", // ؟ Arabic question mark
  "\u066a": "%", // ٪ Arabic percent sign
  "\u066b": ".", // ٫ Arabic decimal separator
  "\u066c": ",", // ٬ Arabic thousands separator
  "\u06d4": ".", // ۔ Urdu full stop
  "\u0131": "i", // ı dotless i (Turkish spellings of names)
  "\u00df": "ss",
};
const LETTER_FOLD_RE = new RegExp(`[${Object.keys(LETTER_FOLD).join("")}]`, "g");

// Apostrophe-like characters stand for ayn or hamza inside transliterated names (Sa'id, Wa’il, ʿAbd):
// they are dropped, not treated as word breaks, so "Sa'id" and "Said" meet.
const APOSTROPHES = /['\u2018\u2019\u201b\u0060\u00b4\u02b9\u02bb\u02bc\u02bd\u02be\u02bf\u02c8\u2032]/g;

/**
 * The matching form of any text: NFKD (presentation forms, ligatures such as ﷲ and lam-alef, full-width
 * letters unfold), combining marks removed (Arabic diacritics and Latin accents alike), tatweel and
 * invisible controls removed, أ إ آ ٱ → ا, ؤ → و, ئ → ي, ى → ي, ة → ه (the hamza seats fall out of the
 * decomposition), Persian keheh/yeh → ك/ي, Arabic-Indic and Persian digits → 0-9, Arabic punctuation →
 * ASCII, apostrophes dropped, Latin lowercased, whitespace collapsed. Standalone hamza ء is kept: علاء and
 * علا are different names.
 */
export function normaliseArabic(s: string): string {
  return toLatinDigits(
    s
      .normalize("NFKD")
      .replace(INVISIBLE, "")
      .replace(MARKS, "")
      .replace(LETTER_FOLD_RE, (c) => LETTER_FOLD[c] ?? c)
      .replace(APOSTROPHES, "")
      .toLowerCase(),
  )
    .normalize("NFC")
    .replace(/\s+/gu, " ")
    .trim();
}

// "al-", "el-" and the assimilated forms before sun letters ("as-Suwayda", "ad-Din", "ash-Sham") in Latin
// transliterations, when written with a hyphen. Standalone "al"/"el" tokens are dropped separately.
const LATIN_ARTICLE_HYPHEN =
  /(^|[^\p{L}\p{N}])(?:al|el|ul|il|ad|an|ar|as|at|az|ed|en|er|es|et|ez|ash|esh|adh|ath|dh)[-\u2010\u2011](?=\p{L})/gu;
const ARTICLE_TOKENS = new Set(["al", "el", "\u0627\u0644"]);
// عبد and ابو bind to the next word in names ("عبد الله" = "عبدالله"); joining them in search too lets either
// spelling find the other.
const ARABIC_BOUND_PREFIXES = new Set(["\u0639\u0628\u062f", "\u0627\u0628\u0648"]);
// ال (the), and its common fused forms وال (and the), بال (with the), لل (for the).
const ARABIC_ARTICLE_PREFIXES = ["\u0648\u0627\u0644", "\u0628\u0627\u0644", "\u0627\u0644", "\u0644\u0644"];

function stripArabicArticle(tok: string): string {
  for (const p of ARABIC_ARTICLE_PREFIXES) {
    // At least three letters must remain: "الله", "والد", "بالغ" keep their first letters.
    if (tok.startsWith(p) && tok.length - p.length >= 3) return tok.slice(p.length);
  }
  return tok;
}

/**
 * Tokens for a full-text index, in order (duplicates kept, for phrase queries): the normalised text split
 * on anything that is not a letter or digit; the Arabic article ال (and وال/بال/لل) removed from the front
 * of a word when three letters remain ("الخطيب" → "خطيب"); Latin "al-"/"el-"/"as-"… prefixes and
 * standalone "al"/"el"/"ال" dropped; عبد/ابو joined to the next word. Apply the same function to stored text
 * and to queries. Does not transliterate: "Mohammad" does not find "محمد" here (use the name module's
 * cross-script keys for names).
 */
export function searchTokens(s: string): string[] {
  const words = normaliseArabic(s)
    .replace(LATIN_ARTICLE_HYPHEN, "$1")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "" && !ARTICLE_TOKENS.has(w));
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const next = words[i + 1];
    if (ARABIC_BOUND_PREFIXES.has(w) && next !== undefined && hasArabic(next)) {
      out.push(w + next);
      i++;
    } else {
      out.push(hasArabic(w) ? stripArabicArticle(w) : w);
    }
  }
  return out;
}

/** `searchTokens(s)` joined by single spaces: the value to store in an indexed search column. */
export function searchText(s: string): string {
  return searchTokens(s).join(" ");
}
