/** A plan the API returned for a dry run: its message, pre-flight checks and the actions it would take. */
import Alert from "@cloudscape-design/components/alert";
import Header from "@cloudscape-design/components/header";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator, { type StatusIndicatorProps } from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import type { Schemas } from "../../api/client";

type Plan = Schemas["Plan"];
type Check = Schemas["PreflightCheck"];

const CHECK_TYPES: Record<Check["status"], StatusIndicatorProps.Type> = { pass: "success", warn: "warning", fail: "error" };

function amount(value: number | null | undefined): string {
  return value === null || value === undefined ? "-" : String(value);
}

export function PlanView({ plan }: { plan: Plan }) {
  const checks = plan.checks ?? [];
  return (
    <SpaceBetween size="m">
      {plan.message && <Alert type="info">{plan.message}</Alert>}
      {checks.length > 0 && (
        <Table
          variant="embedded"
          header={<Header counter={`(${checks.length})`}>Pre-flight checks</Header>}
          items={checks}
          trackBy="check"
          columnDefinitions={[
            { id: "check", header: "Check", cell: (check) => check.check },
            {
              id: "status",
              header: "Status",
              cell: (check) => <StatusIndicator type={CHECK_TYPES[check.status]}>{check.status}</StatusIndicator>,
            },
            { id: "have", header: "Have", cell: (check) => amount(check.have) },
            { id: "need", header: "Need", cell: (check) => amount(check.need) },
            { id: "fix", header: "Fix", cell: (check) => check.fix ?? "-" },
          ]}
        />
      )}
      <Table
        variant="embedded"
        header={<Header counter={`(${plan.actions.length})`}>Planned actions</Header>}
        items={plan.actions}
        columnDefinitions={[
          { id: "action", header: "Action", cell: (action) => action.action },
          { id: "resource", header: "Resource", cell: (action) => action.resource },
          { id: "name", header: "Name", cell: (action) => action.name },
          { id: "detail", header: "Detail", cell: (action) => action.detail ?? "-" },
        ]}
      />
    </SpaceBetween>
  );
}
