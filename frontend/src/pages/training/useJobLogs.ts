/**
 * A job pod's log, followed: read `GET …/logs` now, then every `intervalMs` while `follow` is true, and once more
 * when it turns false (the job ended), so the last lines show. Each read replaces the lines with the last
 * `TAIL_LINES`; a read that finds no pod (they are removed when the job ends) keeps the lines already shown. The page knows nothing of how lines arrive, so a WebSocket subscription can replace the polling here.
 */
import { useEffect, useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";

/** How often a running job's log is read again. */
export const LOG_POLL_MS = 2000;
/** How many of the last lines the page shows. */
export const TAIL_LINES = 1000;

export interface JobLogsState {
  logs: Schemas["JobLogs"] | undefined;
  error: unknown;
}

export function useJobLogs(
  clusterTag: string,
  jobName: string,
  options: { pod: string | undefined; follow: boolean; intervalMs?: number },
): JobLogsState {
  const { api } = useApp();
  const { pod, follow, intervalMs = LOG_POLL_MS } = options;
  const [logs, setLogs] = useState<Schemas["JobLogs"]>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const query = { tailLines: TAIL_LINES, ...(pod ? { pod } : {}) };
        const page = await unwrap(api.GET("/clusters/{clusterTag}/jobs/{jobName}/logs", { params: { path: { clusterTag, jobName }, query }, signal }));
        if (signal.aborted) return;
        setLogs((shown) => (page.pod || !shown ? page : shown));
        setError(undefined);
      } catch (reason) {
        if (!signal.aborted) setError(reason);
      }
      if (follow && !signal.aborted) timer = setTimeout(() => void read(), intervalMs);
    };
    void read();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [api, clusterTag, jobName, pod, follow, intervalMs]);
  return { logs, error };
}
