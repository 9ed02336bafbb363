import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { api, onSignedOut, setCsrfToken } from "../api/client.ts";
import type { Action, Permissions, SessionInfo, SignInStep } from "../api/types.ts";

/**
 * Who this browser is signed in as, the sign-in step it is at, and what it may attempt. The server decides
 * every request; `can` only keeps the app from offering what would be refused.
 */
export interface Session {
  loading: boolean;
  info: SessionInfo | null;
  perms: Permissions | null;
  refresh(): Promise<void>;
  /** After a sign-in step: take its CSRF token, and reload who we are once signed in. */
  stepped(step: SignInStep): Promise<void>;
  signOut(): Promise<void>;
  can(action: Action): boolean;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [info, setInfo] = useState<SessionInfo | null>(null);
  const [perms, setPerms] = useState<Permissions | null>(null);
  const [loading, setLoading] = useState(true);

  const refresh = useCallback(async () => {
    try {
      const [s, p] = await Promise.all([api.session(), api.permissions()]);
      setCsrfToken(s.csrfToken);
      setInfo(s);
      setPerms(p);
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void refresh();
    return onSignedOut(() => void refresh());
  }, [refresh]);

  const stepped = useCallback(
    async (step: SignInStep) => {
      setCsrfToken(step.csrfToken);
      await refresh();
    },
    [refresh],
  );

  const signOut = useCallback(async () => {
    try {
      await api.logout();
    } finally {
      setCsrfToken(null);
      await refresh();
    }
  }, [refresh]);

  const can = useCallback((action: Action) => Boolean(perms?.actions.includes(action)), [perms]);
  const value = useMemo(() => ({ loading, info, perms, refresh, stepped, signOut, can }), [loading, info, perms, refresh, stepped, signOut, can]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}
