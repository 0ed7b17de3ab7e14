/** How the operations pages show times: durations in words a person reads at a glance, timestamps in local time. */
import type { Operation } from "../../hooks/useOperation";
import { TERMINAL_STATUSES } from "../../api/contract.gen";

/** `1h 02m`, `3m 05s`, `42s`. */
export function formatDuration(milliseconds: number): string {
  const seconds = Math.max(0, Math.round(milliseconds / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours) return `${hours}h ${String(minutes).padStart(2, "0")}m`;
  if (minutes) return `${minutes}m ${String(rest).padStart(2, "0")}s`;
  return `${rest}s`;
}

/** From creation to the last update of a finished operation, or to `now` while it runs. */
export function operationDuration(operation: Operation, now: number = Date.now()): string {
  const end = TERMINAL_STATUSES.has(operation.status) ? Date.parse(operation.updatedAt) : now;
  return formatDuration(end - Date.parse(operation.createdAt));
}

export function formatTime(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : "-";
}

/** Stages done out of all, as the API reports them. */
export function stagesDone(operation: Operation): number {
  return operation.stages.filter((stage) => stage.status === "SUCCEEDED").length;
}
