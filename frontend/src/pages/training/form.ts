/**
 * The submit form's values and the request body they become. Values are what a person edits (text, as inputs hold
 * it); `submitBody` sends only what differs from the API's defaults plus the required fields, so the API fills in
 * the rest itself. A recipe form prefills the job form with its own `JobFormValues`.
 */
import type { Schemas } from "../../api/client";
import { NO_TEAM, teamFields, type TeamChoice } from "../../components/TeamPicker";
import { sent } from "../cluster/plan";

type SubmitJobRequest = Schemas["SubmitJobRequest"];
export type JobKind = Schemas["JobKind"];
type RunPolicy = Schemas["RunPolicy"];
type Rule = Schemas["LogMonitoringRule"];
export type CleanPodPolicy = RunPolicy["cleanPodPolicy"];
export type RuleOperator = NonNullable<Rule["operator"]>;

/** The API's defaults (`SubmitJobRequest` in the OpenAPI document; a test holds them equal). */
export const API_DEFAULTS = {
  kind: "HyperPodPyTorchJob" as JobKind,
  nodes: 1,
  gpusPerNode: 1,
  sharedMemoryGi: 64,
  jobMaxRetryCount: 5,
  numRestartBeforeFullJobRestart: 3,
  evalPeriodSeconds: 21600,
  maxFullJobRestarts: 1,
  cleanPodPolicy: "None" as CleanPodPolicy,
};

/** One log-monitoring rule as the form holds it: hang detection (a pattern expected every N s) or an outlier
 * (a metric parsed from the pattern compared with a threshold). Empty text leaves a field out. */
export interface RuleValues {
  name: string;
  logPattern: string;
  expectedStartCutOffInSeconds: string;
  expectedRecurringFrequencyInSeconds: string;
  operator: RuleOperator | "";
  metricThreshold: string;
}

export interface JobFormValues {
  /** HyperPodPyTorchJob, or RayJob / RayCluster on the KubeRay path (no recovery budget, no log monitoring). */
  kind: JobKind;
  name: string;
  image: string;
  /** One item per line. */
  command: string;
  /** One item per line. */
  args: string;
  nodes: string;
  gpusPerNode: string;
  placement: "instanceType" | "instanceGroup";
  /** The instance type or group name, per `placement`. */
  placeOn: string;
  efa: boolean;
  deepHealthCheckedOnly: boolean;
  sharedMemoryGi: string;
  /** `NAME=value`, one per line. */
  environment: string;
  jobMaxRetryCount: string;
  numRestartBeforeFullJobRestart: string;
  evalPeriodSeconds: string;
  maxFullJobRestarts: string;
  cleanPodPolicy: CleanPodPolicy;
  logMonitoring: RuleValues[];
  /** Task governance: the team whose namespace and queue the job goes to, and its priority. */
  team: TeamChoice;
}

export const EMPTY_VALUES: JobFormValues = {
  kind: API_DEFAULTS.kind,
  name: "",
  image: "",
  command: "",
  args: "",
  nodes: String(API_DEFAULTS.nodes),
  gpusPerNode: String(API_DEFAULTS.gpusPerNode),
  placement: "instanceType",
  placeOn: "",
  efa: false,
  deepHealthCheckedOnly: false,
  sharedMemoryGi: String(API_DEFAULTS.sharedMemoryGi),
  environment: "",
  jobMaxRetryCount: String(API_DEFAULTS.jobMaxRetryCount),
  numRestartBeforeFullJobRestart: String(API_DEFAULTS.numRestartBeforeFullJobRestart),
  evalPeriodSeconds: String(API_DEFAULTS.evalPeriodSeconds),
  maxFullJobRestarts: String(API_DEFAULTS.maxFullJobRestarts),
  cleanPodPolicy: API_DEFAULTS.cleanPodPolicy,
  logMonitoring: [],
  team: NO_TEAM,
};

export const EMPTY_RULE: RuleValues = {
  name: "",
  logPattern: "",
  expectedStartCutOffInSeconds: "",
  expectedRecurringFrequencyInSeconds: "",
  operator: "",
  metricThreshold: "",
};

function lines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
}

/** A number field's value (the inputs accept numbers only). */
function numberOf(text: string): number {
  return Number(text.trim());
}

/** `value` when the person changed it from the API's default, else nothing. */
function changed(text: string, fallback: number): number | undefined {
  return text.trim() === "" || numberOf(text) === fallback ? undefined : numberOf(text);
}

function environmentOf(text: string): Record<string, string> {
  return Object.fromEntries(
    lines(text).map((line) => {
      const at = line.indexOf("=");
      return at < 0 ? [line, ""] : [line.slice(0, at).trim(), line.slice(at + 1)];
    }),
  );
}

function ruleOf(rule: RuleValues): Rule {
  const body: Partial<Rule> = { name: rule.name.trim(), logPattern: rule.logPattern };
  if (rule.expectedStartCutOffInSeconds.trim()) body.expectedStartCutOffInSeconds = numberOf(rule.expectedStartCutOffInSeconds);
  if (rule.expectedRecurringFrequencyInSeconds.trim()) {
    body.expectedRecurringFrequencyInSeconds = numberOf(rule.expectedRecurringFrequencyInSeconds);
  }
  if (rule.operator) body.operator = rule.operator;
  if (rule.metricThreshold.trim()) body.metricThreshold = numberOf(rule.metricThreshold);
  return body as Rule;
}

function runPolicyOf(values: JobFormValues): Partial<RunPolicy> | undefined {
  const restart: Partial<NonNullable<RunPolicy["restartPolicy"]>> = {};
  const before = changed(values.numRestartBeforeFullJobRestart, API_DEFAULTS.numRestartBeforeFullJobRestart);
  const period = changed(values.evalPeriodSeconds, API_DEFAULTS.evalPeriodSeconds);
  const full = changed(values.maxFullJobRestarts, API_DEFAULTS.maxFullJobRestarts);
  if (before !== undefined) restart.numRestartBeforeFullJobRestart = before;
  if (period !== undefined) restart.evalPeriodSeconds = period;
  if (full !== undefined) restart.maxFullJobRestarts = full;
  const policy: Partial<RunPolicy> = {};
  const retries = changed(values.jobMaxRetryCount, API_DEFAULTS.jobMaxRetryCount);
  if (retries !== undefined) policy.jobMaxRetryCount = retries;
  if (Object.keys(restart).length) policy.restartPolicy = restart as RunPolicy["restartPolicy"];
  if (values.cleanPodPolicy !== API_DEFAULTS.cleanPodPolicy) policy.cleanPodPolicy = values.cleanPodPolicy;
  return Object.keys(policy).length ? policy : undefined;
}

/** Whether the kind takes the KubeRay path, where the HyperPod recovery budget and log monitoring do not apply. */
export function isRayKind(kind: JobKind): boolean {
  return kind !== "HyperPodPyTorchJob";
}

/** The request body: the name, image and placement always; every other field only when it differs from the default
 * (and, for a Ray kind, nothing of the HyperPod recovery budget or log monitoring). */
export function submitBody(values: JobFormValues): SubmitJobRequest {
  const body: Partial<SubmitJobRequest> = { name: values.name.trim(), image: values.image.trim(), ...teamFields(values.team) };
  if (values.kind !== API_DEFAULTS.kind) body.kind = values.kind;
  body[values.placement] = values.placeOn;
  const command = lines(values.command);
  const args = lines(values.args);
  if (command.length) body.command = command;
  if (args.length) body.args = args;
  const nodes = changed(values.nodes, API_DEFAULTS.nodes);
  const gpus = changed(values.gpusPerNode, API_DEFAULTS.gpusPerNode);
  const shm = changed(values.sharedMemoryGi, API_DEFAULTS.sharedMemoryGi);
  if (nodes !== undefined) body.nodes = nodes;
  if (gpus !== undefined) body.gpusPerNode = gpus;
  if (shm !== undefined) body.sharedMemoryGi = shm;
  if (values.efa) body.efa = true;
  if (values.deepHealthCheckedOnly) body.deepHealthCheckedOnly = true;
  const environment = environmentOf(values.environment);
  if (Object.keys(environment).length) body.environment = environment;
  if (isRayKind(values.kind)) return sent<SubmitJobRequest>(body);
  const runPolicy = runPolicyOf(values);
  if (runPolicy) body.runPolicy = runPolicy as RunPolicy;
  if (values.logMonitoring.length) body.logMonitoring = values.logMonitoring.map(ruleOf);
  return sent<SubmitJobRequest>(body);
}
