/**
 * One operation, kept current by long polling: `GET /operations/{id}/wait` returns as soon as the operation is
 * terminal, or after `LONG_POLL_SECONDS` with its current state; the hook asks again until it is terminal.
 * Every page that watches an operation uses this hook.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { unwrap, type Schemas } from "../api/client";
import { TERMINAL_STATUSES } from "../api/contract.gen";
import { LONG_POLL_SECONDS } from "../api/operations";
import { useApp } from "../app-context";

export type Operation = Schemas["OperationView"];

/**
 * The operation `id` as it changes; `reload` reads it again and follows it (after a resume). `onSettled` runs each
 * time a followed operation turns terminal, not when it was terminal already at the first read — unless
 * `startedHere`: the page started it, so its end is news even when it came before the first read.
 */
export function useOperation(
  id: string | undefined,
  onSettled?: (operation: Operation) => void,
  startedHere = false,
): { operation: Operation | undefined; error: unknown; reload: () => void } {
  const { api } = useApp();
  const [operation, setOperation] = useState<Operation>();
  const [error, setError] = useState<unknown>();
  const [generation, setGeneration] = useState(0);
  const settled = useRef(onSettled);
  settled.current = onSettled;
  useEffect(() => {
    if (!id) return;
    const controller = new AbortController();
    const { signal } = controller;
    const path = { operationId: id };
    const follow = async () => {
      let current = await unwrap(api.GET("/operations/{operationId}", { params: { path }, signal }));
      const wasRunning = startedHere || !TERMINAL_STATUSES.has(current.status);
      while (!signal.aborted) {
        setOperation(current);
        setError(undefined);
        if (TERMINAL_STATUSES.has(current.status)) {
          if (wasRunning) settled.current?.(current);
          return;
        }
        const query = { timeoutSeconds: LONG_POLL_SECONDS };
        current = await unwrap(api.GET("/operations/{operationId}/wait", { params: { path, query }, signal }));
      }
    };
    follow().catch((reason: unknown) => {
      if (!signal.aborted) setError(reason);
    });
    return () => controller.abort();
  }, [api, id, generation, startedHere]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { operation, error, reload };
}
