import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload(): void;
  /** Replaces what was loaded (an action's answer is the fresh state). */
  setData(data: T): void;
}

/** GETs `path` (again whenever it changes); a newer request's answer always wins over an older one. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(path !== null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let current = true;
    setLoading(true);
    setError(undefined);
    api<T>('GET', path).then(
      (answer) => {
        if (!current) return;
        setData(answer);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!current) return;
        setError(errorMessage(failure));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [path, generation]);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { data, error, loading, reload, setData };
}
