import { useCallback, useEffect, useRef, useState } from "react";

/** Loads something when the screen opens (and again on `reload`); an answer that arrives after leaving is dropped. */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): { data: T | null; error: unknown; loading: boolean; reload: () => Promise<void> } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const alive = useRef(true);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(async () => {
    setLoading(true);
    try {
      const v = await loadRef.current();
      if (alive.current) {
        setData(v);
        setError(null);
      }
    } catch (e) {
      if (alive.current) setError(e);
    } finally {
      if (alive.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    alive.current = true;
    void reload();
    return () => {
      alive.current = false;
    };
    // The caller names what the load depends on.
  }, deps);

  return { data, error, loading, reload };
}
