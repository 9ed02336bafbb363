import { useState } from "react";

/**
 * An action a person starts from a screen (a button, a form): busy while it runs, its error kept for an
 * ErrorNote, and `after` (a list's reload) once it succeeds.
 */
export function useAction(after: () => Promise<unknown>) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const act = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      await after();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { act, busy, error };
}
