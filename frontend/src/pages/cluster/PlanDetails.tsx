/**
 * A plan as a person reads it: failing pre-flight checks first, each with its fix (they block the action); the running
 * work the plan stops; the API's message; what it changes; then the actions and the checks, wrapped so that Detail
 * and Fix stay in view.
 */
import Alert from "@cloudscape-design/components/alert";
import Box from "@cloudscape-design/components/box";
import Link from "@cloudscape-design/components/link";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import type { ReactNode } from "react";
import type { Schemas } from "../../api/client";
import { forPeople } from "../../components/forPeople";
import { Status } from "../../components/status";

type Check = Schemas["PreflightCheck"];
type Action = Schemas["PlannedAction"];

/**
 * What the plan-then-confirm flow reads of the API's answers (Plan, Accepted, UpdateResult, FeaturesUpdate): the plan's
 * message, actions, checks, changes and token, and the operation a call started.
 */
export interface Answer {
  actions?: Action[];
  checks?: Check[];
  /** Field by field, what an update changes ("instanceCount": "updated"). */
  changes?: Record<string, string>;
  message?: string | null;
  confirmationToken?: string | null;
  operationId?: string | null;
}

/** The resources a delete plan lists for work running on the cluster: jobs, model servers and managed endpoints. */
const WORKLOADS: ReadonlySet<string> = new Set<Schemas["JobKind"] | Schemas["EndpointKind"] | "Deployment" | "Kubernetes workloads">([
  "HyperPodPyTorchJob",
  "RayJob",
  "RayCluster",
  "Deployment",
  "InferenceEndpointConfig",
  "JumpStartModel",
  "Kubernetes workloads",
]);

const CHECK_ORDER: Record<Check["status"], number> = { fail: 0, warn: 1, pass: 2 };

/** Whether a plan's pre-flight checks refuse it (the API would refuse the real call). */
export function refused(plan: Answer): boolean {
  return (plan.checks ?? []).some((check) => check.status === "fail");
}

/** The running work a plan stops (a cluster's jobs, model servers and endpoints). */
export function workloadsOf(plan: Answer): Action[] {
  return (plan.actions ?? []).filter((action) => action.action === "delete" && WORKLOADS.has(action.resource));
}

/** Text with its web addresses as "open" links to a new tab (a quota's console page): an address is too long to read
 * and breaks anywhere in a narrow column. */
function Linked({ text }: { text: string }) {
  const parts = forPeople(text).split(/(https:\/\/\S+[^\s.,;)])/);
  return (
    <>
      {parts.map((part, index) =>
        index % 2 ? (
          <Link key={index} href={part} external externalIconAriaLabel="(opens in a new tab)">
            open
          </Link>
        ) : (
          part
        ),
      )}
    </>
  );
}

export function PlanDetails({ plan }: { plan: Answer }) {
  const checks = [...(plan.checks ?? [])].sort((a, b) => CHECK_ORDER[a.status] - CHECK_ORDER[b.status]);
  const failing = checks.filter((check) => check.status === "fail");
  const workloads = workloadsOf(plan);
  const changes = Object.entries(plan.changes ?? {});
  return (
    <SpaceBetween size="m">
      {failing.length > 0 && (
        <Alert type="error" header={`${failing.length === 1 ? "A pre-flight check fails" : `${failing.length} pre-flight checks fail`}: fix first`}>
          <ul>
            {failing.map((check) => (
              <li key={check.check}>
                <b>{check.check}</b>
                {numbersOf(check) !== "-" && ` (need / have ${numbersOf(check)})`}
                {check.fix && (
                  <>
                    : <Linked text={check.fix} />
                  </>
                )}
              </li>
            ))}
          </ul>
        </Alert>
      )}
      {workloads.length > 0 && (
        <Alert type="warning" header={`This stops ${workloads.length} running workload${workloads.length === 1 ? "" : "s"}`}>
          <Wrapped
            label="Running workloads"
            items={workloads}
            columns={[
              { id: "name", header: "Name", cell: (action) => action.name, minWidth: 180 },
              { id: "kind", header: "Kind", cell: (action) => action.resource, minWidth: 180 },
              { id: "detail", header: "What happens", cell: (action) => forPeople(action.detail ?? "-") },
            ]}
          />
        </Alert>
      )}
      {plan.message && <Box>{forPeople(plan.message)}</Box>}
      {changes.length > 0 && (
        <Wrapped
          label="Changes"
          items={changes}
          columns={[
            { id: "field", header: "Field", cell: ([field]) => field, minWidth: 180 },
            { id: "change", header: "Change", cell: ([, change]) => change },
          ]}
        />
      )}
      {(plan.actions?.length || !changes.length) && (
        <Wrapped
          label="Planned actions"
          items={plan.actions ?? []}
          empty="No action."
          columns={[
            { id: "action", header: "Action", cell: (action) => action.action, minWidth: 90 },
            { id: "resource", header: "Resource", cell: (action) => action.resource, minWidth: 290 },
            { id: "name", header: "Name", cell: (action) => action.name, minWidth: 180 },
            { id: "detail", header: "Detail", cell: (action) => forPeople(action.detail ?? "-"), minWidth: 260 },
          ]}
        />
      )}
      {checks.length > 0 && (
        <Wrapped
          label="Pre-flight checks"
          items={checks}
          columns={[
            { id: "status", header: "Check", cell: (check) => <Status value={check.status} />, minWidth: 90 },
            { id: "check", header: "What", cell: (check) => check.check, minWidth: 200 },
            { id: "numbers", header: "Need / have", cell: (check) => numbersOf(check), minWidth: 120 },
            { id: "fix", header: "Fix", cell: (check) => (check.fix ? <Linked text={check.fix} /> : "-") },
          ]}
        />
      )}
    </SpaceBetween>
  );
}

/**
 * An embedded table whose cells wrap between words, so that a plan's long details stay inside the dialog; a column's
 * `minWidth` holds its longest word (an AWS resource type) whole.
 */
function Wrapped<T>(props: {
  label: string;
  items: T[];
  empty?: string;
  columns: { id: string; header: string; cell: (item: T) => ReactNode; minWidth?: number }[];
}) {
  return (
    <Table
      variant="embedded"
      wrapLines
      ariaLabels={{ tableLabel: props.label }}
      items={props.items}
      empty={props.empty && <Box textAlign="center">{props.empty}</Box>}
      columnDefinitions={props.columns}
    />
  );
}

function numbersOf(check: Check): string {
  if (check.need == null && check.have == null) return "-";
  return `${check.need ?? "?"} / ${check.have ?? "?"}`;
}
