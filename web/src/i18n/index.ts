import i18next from "i18next";
import { initReactI18next } from "react-i18next";
import ar from "./ar.json";
import en from "./en.json";

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

type Tree = { [k: string]: string | Tree };

/**
 * Each area of the app (catalogue, review, families …) may keep its strings in its own pair of files,
 * web/src/i18n/areas/<area>.en.json and <area>.ar.json, each holding one top-level group; they are merged into
 * the common files here, so areas built side by side do not edit the same file.
 */
const areaFiles = import.meta.glob<Tree>("./areas/*.json", { eager: true, import: "default" });

function withAreas(base: Tree, lang: Lang): Tree {
  const out: Tree = { ...base };
  for (const [path, tree] of Object.entries(areaFiles)) {
    if (!path.endsWith(`.${lang}.json`)) continue;
    for (const [k, v] of Object.entries(tree)) {
      if (k in out) throw new Error(`${path}: the group "${k}" is already defined`);
      out[k] = v;
    }
  }
  return out;
}

export const resources = { ar: { translation: withAreas(ar as Tree, "ar") }, en: { translation: withAreas(en as Tree, "en") } } as const;

export async function initI18n(lang: Lang): Promise<typeof i18next> {
  await i18next.use(initReactI18next).init({
    resources,
    lng: lang,
    fallbackLng: false,
    // React escapes what it renders; escaping here too would show "&amp;".
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  applyDocumentLanguage(lang);
  return i18next;
}
