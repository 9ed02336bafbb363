import i18next from "i18next";
import { initReactI18next } from "react-i18next";

/**
 * Languages: Arabic (right to left) and English. The first language the browser prefers that we have decides,
 * unless the person chose one (kept in localStorage); English when the browser prefers neither. Digits follow
 * the language (Arabic-Indic in Arabic) unless the person switches them; identifiers and hashes are always
 * written in Latin digits, left to right.
 */
export type Lang = "ar" | "en";
export type Digits = "arab" | "latn";
export const LANGS: readonly Lang[] = ["ar", "en"];

const LANG_KEY = "dalil.lang";
const DIGITS_KEY = "dalil.digits";

export function preferredLanguage(stored: string | null, browser: readonly string[]): Lang {
  if (stored === "ar" || stored === "en") return stored;
  for (const l of browser) {
    const base = l.toLowerCase().split("-")[0];
    if (base === "ar" || base === "en") return base;
  }
  return "en";
}

export function preferredDigits(stored: string | null, lang: Lang): Digits {
  if (stored === "arab" || stored === "latn") return stored;
  return lang === "ar" ? "arab" : "latn";
}

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export function initialPrefs(): { lang: Lang; digits: Digits; digitsChosen: boolean } {
  const s = storage();
  const lang = preferredLanguage(s?.getItem(LANG_KEY) ?? null, navigator.languages ?? [navigator.language]);
  const storedDigits = s?.getItem(DIGITS_KEY) ?? null;
  return { lang, digits: preferredDigits(storedDigits, lang), digitsChosen: storedDigits !== null };
}

export function saveLang(lang: Lang): void {
  storage()?.setItem(LANG_KEY, lang);
}

export function saveDigits(digits: Digits): void {
  storage()?.setItem(DIGITS_KEY, digits);
}

export function applyDocumentLanguage(lang: Lang): void {
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === "ar" ? "rtl" : "ltr";
}

/**
 * The words of one language, loaded when the reader first needs it: each language is its own file of the build
 * (web/src/i18n/words-<lang>.ts), so a reader downloads and parses only theirs (both were about 390 KB of a
 * 1 MB script before), and the other only if they switch.
 */
const WORDS: Record<Lang, () => Promise<{ words: Record<string, unknown> }>> = {
  ar: () => import("./words-ar.ts"),
  en: () => import("./words-en.ts"),
};

export async function loadLanguage(lang: Lang): Promise<void> {
  if (i18next.hasResourceBundle(lang, "translation")) return;
  i18next.addResourceBundle(lang, "translation", (await WORDS[lang]()).words);
}

export async function initI18n(lang: Lang): Promise<typeof i18next> {
  const { words } = await WORDS[lang]();
  await i18next.use(initReactI18next).init({
    resources: { [lang]: { translation: words } },
    lng: lang,
    fallbackLng: false,
    // React escapes what it renders; escaping here too would show "&amp;".
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  applyDocumentLanguage(lang);
  return i18next;
}
