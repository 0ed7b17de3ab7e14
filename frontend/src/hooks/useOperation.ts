/**
 * Follows one operation live: reads it, then long-polls `GET /operations/{id}/wait` until it is terminal, so a
 * page shows each stage's progress without a reload. Every page that watches an operation uses this hook; the
 * long-poll timeout is set here only.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { unwrap, type Schemas } from "../api/client";
import { useApp } from "../app-context";

export type Operation = Schemas["OperationView"];

/** Seconds one long poll may hold the API (the sandbox serves one request at a time: keep it short there). */
export const LONG_POLL_SECONDS = 5;

const TERMINAL: ReadonlySet<Operation["status"]> = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);

export function isTerminal(operation: Operation): boolean {
  return TERMINAL.has(operation.status);
}

export interface FollowedOperation {
  operation: Operation | undefined;
  error: unknown;
  /** Shows `operation` (e.g. the one a resume returned) and follows it until it is terminal again. */
  follow: (operation: Operation) => void;
}

/**
 * The operation `operationId` as it changes. `onSettled` runs once each time a followed operation turns terminal
 * (not when it was terminal already at the first read).
 */
export function useOperation(
  operationId: string | null | undefined,
  onSettled?: (operation: Operation) => void,
): FollowedOperation {
  const { api } = useApp();
  const [operation, setOperation] = useState<Operation>();
  const [error, setError] = useState<unknown>();
  const [started, setStarted] = useState<{ id: string; from?: Operation } | undefined>();
  const settled = useRef(onSettled);
  settled.current = onSettled;

  useEffect(() => {
    setStarted(operationId ? { id: operationId } : undefined);
    setOperation(undefined);
    setError(undefined);
  }, [operationId]);

  useEffect(() => {
    if (!started) return;
    const controller = new AbortController();
    const { signal } = controller;
    const path = { operationId: started.id };
    void (async () => {
      try {
        let current = started.from ?? (await unwrap(api.GET("/operations/{operationId}", { params: { path }, signal })));
        if (signal.aborted) return;
        setOperation(current);
        const wasRunning = !isTerminal(current);
        while (!isTerminal(current)) {
          current = await unwrap(
            api.GET("/operations/{operationId}/wait", {
              params: { path, query: { timeoutSeconds: LONG_POLL_SECONDS } },
              signal,
            }),
          );
          if (signal.aborted) return;
          setOperation(current);
        }
        setError(undefined);
        if (wasRunning) settled.current?.(current);
      } catch (reason: unknown) {
        if (!signal.aborted) setError(reason);
      }
    })();
    return () => controller.abort();
  }, [api, started]);

  const follow = useCallback((next: Operation) => setStarted({ id: next.operationId, from: next }), []);
  return { operation, error, follow };
}
