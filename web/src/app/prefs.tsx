import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import i18next from "i18next";
import { applyDocumentLanguage, loadLanguage, saveDigits, saveLang, type Digits, type Lang } from "../i18n/index.ts";
import { makeFormat, type Format } from "../i18n/format.ts";

/** The reader's language and digits, and formatters that follow them. */
export interface Prefs {
  lang: Lang;
  digits: Digits;
  setLang(lang: Lang): void;
  setDigits(digits: Digits): void;
  fmt: Format;
  /** The last language switch failed: the other language's words could not be fetched. */
  langFailed: boolean;
}

const PrefsContext = createContext<Prefs | null>(null);

export function PrefsProvider({ initial, children }: { initial: { lang: Lang; digits: Digits; digitsChosen: boolean }; children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(initial.lang);
  const [digits, setDigitsState] = useState<Digits>(initial.digits);
  const [digitsChosen, setDigitsChosen] = useState(initial.digitsChosen);
  const [langFailed, setLangFailed] = useState(false);

  const setLang = useCallback(
    (next: Lang) => {
      // The other language's words are fetched the first time it is chosen: the screen changes, and the choice is
      // kept, when they are here; if they cannot be fetched the reader is told, in the language still shown.
      loadLanguage(next).then(
        async () => {
          setLangFailed(false);
          saveLang(next);
          await i18next.changeLanguage(next);
          applyDocumentLanguage(next);
          setLangState(next);
          // Digits follow the language until the person picks them.
          if (!digitsChosen) setDigitsState(next === "ar" ? "arab" : "latn");
        },
        () => setLangFailed(true),
      );
    },
    [digitsChosen],
  );
  const setDigits = useCallback((next: Digits) => {
    saveDigits(next);
    setDigitsChosen(true);
    setDigitsState(next);
  }, []);
  const fmt = useMemo(() => makeFormat(lang, digits), [lang, digits]);
  const value = useMemo(() => ({ lang, digits, setLang, setDigits, fmt, langFailed }), [lang, digits, setLang, setDigits, fmt, langFailed]);
  return <PrefsContext.Provider value={value}>{children}</PrefsContext.Provider>;
}

export function usePrefs(): Prefs {
  const p = useContext(PrefsContext);
  if (!p) throw new Error("usePrefs outside PrefsProvider");
  return p;
}

export function useFormat(): Format {
  return usePrefs().fmt;
}
