/** Tab state kept in the URL's query (`?tab=nodes&filter=…`), so every view of a tab is a permalink. */
import { useCallback } from "react";
import { useSearchParams } from "react-router-dom";

/** One query parameter as state; setting it keeps the others (the tab above all), and `null` removes it. */
export function useQueryParam(name: string): [string | null, (value: string | null) => void] {
  const [params, setParams] = useSearchParams();
  const set = useCallback(
    (value: string | null) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (value === null || value === "") next.delete(name);
          else next.set(name, value);
          return next;
        },
        { replace: true },
      ),
    [name, setParams],
  );
  return [params.get(name), set];
}
