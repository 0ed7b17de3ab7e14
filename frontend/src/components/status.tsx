/**
 * The console's one status vocabulary: every state word the API returns (its own enums, and SageMaker's, EKS's and
 * Kubernetes' words it passes through) as a Cloudscape status indicator type. Words match whatever their case and
 * separators ("InService", "IN_SERVICE", "Scaled to zero"). A word with a detail, "enabled (CREATING)" or a node's
 * "Pending" with "Rebooting", shows the less settled of the two: an add-on still creating is not yet green.
 */
import Badge from "@cloudscape-design/components/badge";
import Box from "@cloudscape-design/components/box";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator, { type StatusIndicatorProps } from "@cloudscape-design/components/status-indicator";
import type { Schemas } from "../api/client";

type Type = StatusIndicatorProps.Type;

/** "Running" is work under way for an operation, a stage or a job, and a machine that is up for a node. */
export type Vocabulary = "work" | "machine";

const WORDS: Record<string, Type> = {
  // settled and well
  active: "success",
  succeeded: "success",
  inservice: "success",
  ready: "success",
  enabled: "success",
  pass: "success",
  schedulable: "success",
  deploymentcomplete: "success",
  // under way
  running: "in-progress",
  creating: "in-progress",
  importing: "in-progress",
  updating: "in-progress",
  deleting: "in-progress",
  systemupdating: "in-progress",
  deploymentinprogress: "in-progress",
  deletioninprogress: "in-progress",
  deephealthcheckinprogress: "in-progress",
  attachinprogress: "in-progress",
  detachinprogress: "in-progress",
  shuttingdown: "in-progress",
  rebooting: "in-progress",
  replacing: "in-progress",
  starting: "in-progress",
  stopping: "in-progress",
  loading: "loading",
  // waiting to start
  pending: "pending",
  queued: "pending",
  deploymentpending: "pending",
  deletionpending: "pending",
  unknown: "pending",
  // needs a look
  partial: "warning",
  warn: "warning",
  restarting: "warning",
  degraded: "warning",
  rollingback: "warning",
  cordoned: "warning",
  notfound: "warning",
  createcancelled: "warning",
  importcancelled: "warning",
  // failed
  failed: "error",
  failure: "error",
  fail: "error",
  createfailed: "error",
  importfailed: "error",
  updatefailed: "error",
  deletefailed: "error",
  deploymentfailed: "error",
  deletionfailed: "error",
  notready: "error",
  unschedulable: "error",
  unschedulablependingreboot: "error",
  unschedulablependingreplacement: "error",
  // ended or off
  cancelled: "stopped",
  disabled: "stopped",
  deletioncomplete: "stopped",
  scaledtozero: "stopped",
  stopped: "stopped",
};

const MACHINE_WORDS: Record<string, Type> = { running: "success" };

/** The least settled first: of a word and its detail, the higher one shows. */
const RANK: Type[] = ["error", "warning", "in-progress", "loading", "pending", "stopped", "info", "not-started", "success"];

function key(word: string): string {
  return word.toLowerCase().replace(/[\s_-]+/g, "");
}

/** The indicator type of a known word, or undefined. */
export function knownStatusType(word: string, vocabulary: Vocabulary = "work"): Type | undefined {
  const normal = key(word);
  return (vocabulary === "machine" ? MACHINE_WORDS[normal] : undefined) ?? WORDS[normal];
}

/** The indicator for a status, with an optional detail ("Rebooting"); "enabled (CREATING)" is read as both. */
export function statusType(value: string, detail?: string | null, vocabulary: Vocabulary = "work"): Type {
  const parts = /^(.*?)\s*\((.*)\)$/.exec(value);
  const words = [parts ? parts[1] : value, parts?.[2], detail].filter((word): word is string => !!word);
  const types = words.map((word) => knownStatusType(word, vocabulary)).filter((type): type is Type => !!type);
  if (!types.length) return "info";
  return types.reduce((worst, type) => (RANK.indexOf(type) < RANK.indexOf(worst) ? type : worst));
}

/** A status word as the API sent it, with its detail in brackets; one line, never broken inside a word. */
export function Status(props: { value: string | null | undefined; detail?: string | null; vocabulary?: Vocabulary }) {
  const text = props.value ?? "UNKNOWN";
  return (
    <span style={{ whiteSpace: "nowrap" }}>
      <StatusIndicator type={statusType(text, props.detail, props.vocabulary)}>
        {props.detail ? `${text} (${props.detail})` : text}
      </StatusIndicator>
    </span>
  );
}

/** A workload's status (a job's phase, a model server's status); one Kueue holds (task governance) shows a Queued
 * badge with why it waits. */
export function QueueStatus({ value, waitingReason }: { value: string; waitingReason?: string | null }) {
  if (value !== "Queued") return <Status value={value} />;
  return (
    <SpaceBetween size="xxs">
      <Badge color="blue">Queued</Badge>
      {waitingReason && <Box variant="small">{waitingReason}</Box>}
    </SpaceBetween>
  );
}

/** A table column's least width for a stages progress bar: narrower, the bar shrinks to a dot beside its text. */
export const STAGES_BAR_WIDTH = 200;

const CREATIONS: ReadonlySet<string> = new Set(["create_cluster", "create_eks_cluster", "import_cluster"]);

/**
 * A cluster's status, saying when its last create (or import) failed part-way and at which stage: EKS is ACTIVE, the
 * rest is not built ("ACTIVE (create failed at stage 3: hyperpod)"). A resume under way shows the status alone.
 */
export function ClusterStatus({ cluster }: { cluster: Schemas["ClusterView"] }) {
  const last = cluster.lastOperation;
  if (!last || cluster.activeOperationId || !CREATIONS.has(last.kind) || !(last.status === "FAILED" || last.status === "CANCELLED")) {
    return <Status value={cluster.status} />;
  }
  const outcome = `${last.kind === "import_cluster" ? "import" : "create"} ${last.status.toLowerCase()}`;
  const where = last.failedStageNumber ? ` at stage ${last.failedStageNumber}: ${last.failedStage}` : "";
  return (
    <span style={{ whiteSpace: "nowrap" }}>
      <StatusIndicator type={statusType(cluster.status, outcome)}>{`${cluster.status} (${outcome}${where})`}</StatusIndicator>
    </span>
  );
}
