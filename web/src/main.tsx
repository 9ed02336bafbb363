import "@fontsource/noto-naskh-arabic/arabic-400.css";
import "@fontsource/noto-naskh-arabic/arabic-700.css";
import "@fontsource/noto-sans/latin-400.css";
import "@fontsource/noto-sans/latin-700.css";
import "./styles/app.css";
import { createRoot } from "react-dom/client";
import { initI18n, initialPrefs } from "./i18n/index.ts";
import { PrefsProvider } from "./app/prefs.tsx";
import { SessionProvider } from "./app/session.tsx";
import { App } from "./app/App.tsx";

const prefs = initialPrefs();
await initI18n(prefs.lang);

const root = document.getElementById("root");
if (!root) throw new Error("no #root element");
createRoot(root).render(
  <PrefsProvider initial={prefs}>
    <SessionProvider>
      <App />
    </SessionProvider>
  </PrefsProvider>,
);
