import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { Link, matchPath, navigate, useLocation } from "./router.tsx";
import { MENU_GROUPS, SCREENS, findScreen, type ScreenDef } from "./screens.ts";
import { useSession } from "./session.tsx";
import { usePrefs } from "./prefs.tsx";
import { SignIn } from "../screens/SignIn.tsx";
import { Notice } from "../components/Notice.tsx";
import { ScreenFrame } from "./lazy-screen.tsx";
import type { Action, Role } from "../api/types.ts";

function allowed(screen: ScreenDef, signedIn: boolean, can: (a: Action) => boolean, role?: Role): boolean {
  if (screen.public) return true;
  return signedIn && (screen.requires ?? []).every(can) && (!screen.roles || (role !== undefined && screen.roles.includes(role)));
}

export function App() {
  const { t } = useTranslation();
  const session = useSession();
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const signedIn = Boolean(session.info?.signedIn);
  const found = findScreen(path, matchPath);
  const menu = SCREENS.filter((s) => s.menu !== undefined && allowed(s, signedIn, session.can, session.perms?.role)).sort((a, b) => a.menu! - b.menu!);
  // The menu by area of the work: a person sees the areas their role works in, each with its screens.
  const groups = MENU_GROUPS.map((g) => ({ group: g, screens: menu.filter((s) => (s.group ?? "archive") === g) })).filter((g) => g.screens.length > 0);

  // "/" goes to the first screen this person can use; signed out, to sign-in.
  useEffect(() => {
    if (session.loading || path !== "/") return;
    // Home (what waits for this person) when the role has one, else the first screen the person can use.
    navigate(signedIn ? (menu[0]?.path ?? "/account") : "/signin", { replace: true });
  }, [session.loading, path, signedIn, menu]);

  const showSignIn = path === "/signin" || (!signedIn && found !== null && !found.screen.public);
  const title = showSignIn ? t("signin.title") : found ? t(found.screen.title) : t("app.notFound");

  useEffect(() => {
    document.title = `${title} · ${t("app.name")}`;
    // Arriving on a new screen moves focus to it, so a screen reader announces it and Tab starts there.
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [path, title, t]);

  useEffect(() => {
    if (path === "/signin" && signedIn) navigate("/", { replace: true });
  }, [path, signedIn]);

  let body;
  if (session.loading) body = <p className="muted">{t("app.loading")}</p>;
  else if (showSignIn) body = <SignIn />;
  else if (!found) body = <Notice kind="error" title={t("app.notFound")}>{t("app.notFoundHelp")}</Notice>;
  else if (!allowed(found.screen, signedIn, session.can, session.perms?.role)) body = <Notice kind="error" title={t("app.forbidden")}>{t("app.forbiddenHelp")}</Notice>;
  else {
    const Screen = found.screen.component;
    body = (
      <ScreenFrame key={path}>
        <Screen params={found.params} />
      </ScreenFrame>
    );
  }

  return (
    <>
      <a className="skip-link" href="#main">
        {t("app.skip")}
      </a>
      <header className="topbar">
        <Link to="/" className="brand" title={t("app.home")}>
          <span className="brand-ar" lang="ar">
            دليل
          </span>
          <span className="brand-en" lang="en">
            dalil
          </span>
        </Link>
        <nav aria-label={t("app.menu")} className="menu">
          <ul className="menu-groups">
            {groups.map(({ group, screens }) => (
              <li key={group} className="menu-group" data-group={group}>
                {screens.length > 1 && (
                  <span className="menu-group-label" id={`menu-${group}`}>
                    {t(`app.menuGroups.${group}`)}
                  </span>
                )}
                <ul aria-labelledby={screens.length > 1 ? `menu-${group}` : undefined}>
                  {screens.map((s) => (
                    <li key={s.id}>
                      <Link to={s.path} aria-current={found?.screen.id === s.id ? "page" : undefined}>
                        {t(s.title)}
                      </Link>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </nav>
        <Toolbar />
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {body}
      </main>
    </>
  );
}

function Toolbar() {
  const { t } = useTranslation();
  const { lang, setLang, digits, setDigits, langFailed } = usePrefs();
  const session = useSession();
  const other = lang === "ar" ? "en" : "ar";
  const user = session.info?.signedIn ? session.info.user : null;
  return (
    <div className="toolbar">
      <button type="button" className="link-button" lang={other} onClick={() => setLang(other)} data-testid="switch-language">
        {t("app.switchTo")}
      </button>
      {langFailed && (
        <span role="alert" className="toolbar-error" data-testid="switch-language-failed">
          {t("app.switchFailed")}
        </span>
      )}
      {lang === "ar" && (
        <button type="button" className="link-button" aria-pressed={digits === "arab"} onClick={() => setDigits(digits === "arab" ? "latn" : "arab")}>
          {t("app.arabicDigits")}
        </button>
      )}
      {user ? (
        <>
          <Link to="/account" className="who" title={t("app.account")}>
            {user.email ? <span dir="ltr">{user.email}</span> : t("app.you")} · {t(`roles.${user.role}`)}
          </Link>
          <button type="button" className="link-button" onClick={() => void session.signOut().then(() => navigate("/signin"))}>
            {t("app.signOut")}
          </button>
        </>
      ) : (
        <Link to="/signin">{t("signin.title")}</Link>
      )}
    </div>
  );
}
