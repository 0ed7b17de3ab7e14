/**
 * A job pod's log, followed. Without `follow`, `GET …/logs` is read once (the last `TAIL_LINES`; a read that finds
 * no pod, as when the ended job's pods are removed, keeps the lines already shown).
 *
 * While `follow` is true the log is followed over the live logs' WebSocket API when `config.json` names one
 * (`wsBase`): the socket connects with the session's token, subscribes to the job (or `pod`), and each `lines` frame
 * extends the log from its `start` (a frame with `start` 0 replaces it: a new pod, a restarted container). Without
 * `wsBase`, or when the socket cannot subscribe, the logs route is read every `intervalMs` instead. When `follow`
 * turns false (the job ended) the route is read once more, so the last lines show. The page knows nothing of how
 * lines arrive.
 */
import { useEffect, useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { currentSession } from "../../auth/session";

/** How often a running job's log is read again when it is polled. */
export const LOG_POLL_MS = 2000;
/** How many of the last lines the page shows. */
export const TAIL_LINES = 1000;

type JobLogs = Schemas["JobLogs"];

export interface JobLogsState {
  logs: JobLogs | undefined;
  error: unknown;
}

/** The frames the WebSocket API sends (`controlplane.models.logstream`). */
type Frame =
  | { type: "lines"; topic: string; pod: string; pods: string[]; start: number; lines: string[] }
  | { type: "subscribed" | "ended"; topic?: string; message?: string }
  | { type: "error"; code?: string; message?: string };

/** The WebSocket URL of `wsBase` (absolute, or a path of the console's own origin) with the session's token. */
export function socketUrl(wsBase: string, token: string): string {
  const url = new URL(wsBase, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : url.protocol === "http:" ? "ws:" : url.protocol;
  url.searchParams.set("token", token);
  return url.toString();
}

export function useJobLogs(
  clusterTag: string,
  jobName: string,
  options: { pod: string | undefined; follow: boolean; intervalMs?: number },
): JobLogsState {
  const { api, config } = useApp();
  const { pod, follow, intervalMs = LOG_POLL_MS } = options;
  const [logs, setLogs] = useState<JobLogs>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let unsubscribe: (() => void) | undefined;
    const read = async (again: boolean) => {
      try {
        const query = { tailLines: TAIL_LINES, ...(pod ? { pod } : {}) };
        const page = await unwrap(api.GET("/clusters/{clusterTag}/jobs/{jobName}/logs", { params: { path: { clusterTag, jobName }, query }, signal }));
        if (signal.aborted) return;
        setLogs((shown) => (page.pod || !shown ? page : shown));
        setError(undefined);
      } catch (reason) {
        if (!signal.aborted) setError(reason);
      }
      if (again && !signal.aborted) timer = setTimeout(() => void read(true), intervalMs);
    };
    const token = currentSession()?.authorization.replace(/^Bearer\s+/, "");
    if (follow && config.wsBase && token) {
      let followed: Followed | undefined;
      unsubscribe = subscribe(socketUrl(config.wsBase, token), { clusterTag, jobName, pod }, {
        lines: (frame) => {
          followed = extend(followed, jobName, frame);
          setLogs(followed.logs);
          setError(undefined);
        },
        refused: (message) => setError(new Error(message)),
        unavailable: () => void read(true),
      });
    } else {
      void read(follow);
    }
    return () => {
      controller.abort();
      clearTimeout(timer);
      unsubscribe?.();
    };
  }, [api, config.wsBase, clusterTag, jobName, pod, follow, intervalMs]);
  return { logs, error };
}

interface Listener {
  lines: (frame: Extract<Frame, { type: "lines" }>) => void;
  refused: (message: string) => void;
  /** The socket closed before it could subscribe: the caller falls back to polling. */
  unavailable: () => void;
}

/** Opens the socket and subscribes; returns what closes it. */
function subscribe(url: string, topic: { clusterTag: string; jobName: string; pod: string | undefined }, listener: Listener): () => void {
  const socket = new WebSocket(url);
  let subscribed = false;
  let closed = false;
  socket.onopen = () => socket.send(JSON.stringify({ action: "subscribe", ...topic }));
  socket.onmessage = (event: MessageEvent<string>) => {
    const frame = JSON.parse(event.data) as Frame;
    if (frame.type === "subscribed") subscribed = true;
    else if (frame.type === "lines") listener.lines(frame);
    else if (frame.type === "error") listener.refused(frame.message ?? "The live log was refused.");
  };
  socket.onclose = () => {
    if (!subscribed && !closed) listener.unavailable();
  };
  return () => {
    closed = true;
    socket.close();
  };
}

/** A followed log: the lines shown, and how many of the pod's first lines were dropped to keep TAIL_LINES. */
export interface Followed {
  logs: JobLogs;
  dropped: number;
}

/** The followed log with a frame's lines from `start` on (a line already shown is not repeated). */
export function extend(followed: Followed | undefined, jobName: string, frame: Extract<Frame, { type: "lines" }>): Followed {
  const same = followed !== undefined && followed.logs.pod === frame.pod && frame.start > 0;
  const dropped = same ? followed.dropped : 0;
  const kept = same ? followed.logs.lines.slice(0, Math.max(0, frame.start - dropped)) : [];
  const lines = [...kept, ...frame.lines.slice(Math.max(0, dropped - frame.start))];
  const excess = Math.max(0, lines.length - TAIL_LINES);
  return { logs: { jobName, pod: frame.pod, pods: frame.pods, lines: lines.slice(excess) }, dropped: dropped + excess };
}
