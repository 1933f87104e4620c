import { useCallback, useEffect, useRef, useState } from "react";
import { apiGet } from "./api";

/** Loads a GET endpoint; `reload()` fetches again; `refreshMs` polls while mounted. */
export function useApi<T>(path: string | null, opts: { refreshMs?: number } = {}) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const controller = useRef<AbortController | null>(null);

  const load = useCallback(async () => {
    if (path === null) return;
    controller.current?.abort();
    const c = new AbortController();
    controller.current = c;
    try {
      const result = await apiGet<T>(path, c.signal);
      if (!c.signal.aborted) {
        setData(result);
        setError(null);
      }
    } catch (err) {
      if (!c.signal.aborted) setError(err as Error);
    } finally {
      if (!c.signal.aborted) setLoading(false);
    }
  }, [path]);

  useEffect(() => {
    setLoading(path !== null);
    void load();
    const timer = opts.refreshMs ? setInterval(load, opts.refreshMs) : undefined;
    return () => {
      controller.current?.abort();
      if (timer) clearInterval(timer);
    };
  }, [load, opts.refreshMs]);

  return { data, error, loading, reload: load };
}
