/** Status words from the API as Cloudscape status indicators: one mapping for clusters, operations and stages. */
import StatusIndicator, { type StatusIndicatorProps } from "@cloudscape-design/components/status-indicator";

const TYPES: Record<string, StatusIndicatorProps.Type> = {
  ACTIVE: "success",
  SUCCEEDED: "success",
  CREATING: "in-progress",
  IMPORTING: "in-progress",
  DELETING: "in-progress",
  RUNNING: "in-progress",
  PENDING: "pending",
  FAILED: "error",
  CANCELLED: "stopped",
};

export function Status({ value }: { value: string | null | undefined }) {
  const text = value ?? "UNKNOWN";
  return <StatusIndicator type={TYPES[text] ?? "info"}>{text}</StatusIndicator>;
}
