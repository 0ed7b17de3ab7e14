/** Loads one API resource for a page: data, the error (shown with its message and request id), and reload. */
import { useCallback, useEffect, useRef, useState } from "react";

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Resource<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    loadRef
      .current(controller.signal)
      .then((value) => {
        if (controller.signal.aborted) return;
        setData(value);
        setError(undefined);
      })
      .catch((reason: unknown) => {
        if (!controller.signal.aborted) setError(reason);
      })
      .finally(() => {
        if (!controller.signal.aborted) setLoading(false);
      });
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data, error, loading, reload };
}

/** Every page of a list route (`limit`/`continue`), up to `max` items. */
export async function allPages<T>(
  fetchPage: (next: string | undefined) => Promise<{ items: T[]; next: string | null | undefined }>,
  max = 1000,
): Promise<T[]> {
  const items: T[] = [];
  let next: string | undefined;
  do {
    const page = await fetchPage(next);
    items.push(...page.items);
    next = page.next ?? undefined;
  } while (next && items.length < max);
  return items;
}
