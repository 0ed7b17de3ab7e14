/**
 * The plan-then-confirm flow every write action of the cluster tabs goes through: ask the API for the plan (dryRun,
 * or the destructive call without a token), show its actions and pre-flight checks, and on confirmation repeat the
 * call with the API's confirmationToken. The started operation is announced with a link to its page.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Modal from "@cloudscape-design/components/modal";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator, { type StatusIndicatorProps } from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import { useState, type ReactNode } from "react";
import type { Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { RouterLink } from "../../components/links";

/**
 * What the plan-then-confirm flow reads of the API's answers (Plan, Accepted, UpdateResult, FeaturesUpdate): the plan's
 * message, actions, checks and token, and the operation a call started.
 */
export interface Answer {
  actions?: Schemas["PlannedAction"][];
  checks?: Schemas["PreflightCheck"][];
  message?: string | null;
  confirmationToken?: string | null;
  operationId?: string | null;
}

/**
 * A request body as a form sends it: only the fields the person set. The generated request types require every field
 * the API gives a default (one schema serves both directions), yet the API fills those in itself.
 */
export function sent<T>(body: Partial<T>): T {
  return body as T;
}

export interface PlannedAction {
  header: string;
  confirmLabel: string;
  /** The plan: a dryRun, or the destructive call without a token (the API answers with the plan and a token). */
  plan: () => Promise<Answer>;
  /** The real call, with the plan's confirmationToken when the API gave one. */
  run: (confirmationToken: string | undefined) => Promise<Answer>;
}

const CHECK_TYPES: Record<Schemas["PreflightCheck"]["status"], StatusIndicatorProps.Type> = {
  pass: "success",
  warn: "warning",
  fail: "error",
};

/** A plan as the API returned it: its message, the actions it would take and its pre-flight checks. */
export function PlanDetails({ plan }: { plan: Answer }) {
  const checks = plan.checks ?? [];
  return (
    <SpaceBetween size="s">
      {plan.message && <Box>{plan.message}</Box>}
      <Table
        variant="embedded"
        ariaLabels={{ tableLabel: "Planned actions" }}
        items={plan.actions ?? []}
        empty={<Box textAlign="center">No action.</Box>}
        columnDefinitions={[
          { id: "action", header: "Action", cell: (action) => action.action },
          { id: "resource", header: "Resource", cell: (action) => action.resource },
          { id: "name", header: "Name", cell: (action) => action.name },
          { id: "detail", header: "Detail", cell: (action) => action.detail ?? "-" },
        ]}
      />
      {checks.length > 0 && (
        <Table
          variant="embedded"
          ariaLabels={{ tableLabel: "Pre-flight checks" }}
          items={checks}
          columnDefinitions={[
            {
              id: "status",
              header: "Check",
              cell: (check) => <StatusIndicator type={CHECK_TYPES[check.status]}>{check.status}</StatusIndicator>,
            },
            { id: "check", header: "What", cell: (check) => check.check },
            { id: "numbers", header: "Need / have", cell: (check) => numbersOf(check) },
            { id: "fix", header: "Fix", cell: (check) => check.fix ?? "-" },
          ]}
        />
      )}
    </SpaceBetween>
  );
}

function numbersOf(check: Schemas["PreflightCheck"]): string {
  if (check.need == null && check.have == null) return "-";
  return `${check.need ?? "?"} / ${check.have ?? "?"}`;
}

/** Whether a plan's pre-flight checks refuse it (the API would refuse the real call). */
export function refused(plan: Answer): boolean {
  return (plan.checks ?? []).some((check) => check.status === "fail");
}

export function OperationLink({ operationId }: { operationId: string }) {
  return <RouterLink href={`/operations/${encodeURIComponent(operationId)}`}>{operationId}</RouterLink>;
}

/** Announces what a call started: the operation with its link, or the API's message when nothing had to change. */
export function startedNotice(header: string, started: Answer): ReactNode {
  if (!started.operationId) return `${header}: ${started.message ?? "nothing to change."}`;
  return (
    <>
      {header}: operation <OperationLink operationId={started.operationId} /> started.
    </>
  );
}

interface Open {
  action: PlannedAction;
  plan?: Answer;
  error?: unknown;
  running: boolean;
}

/**
 * `start(action)` loads the action's plan into a modal; Confirm runs it with the plan's token, announces the
 * operation and calls `onStarted` with the API's answer. Render `modal` once in the tab.
 */
export function usePlannedAction(
  onStarted: (started: Answer) => void,
): { start: (action: PlannedAction) => void; modal: ReactNode } {
  const { notify } = useApp();
  const [open, setOpen] = useState<Open | null>(null);

  const start = (action: PlannedAction) => {
    setOpen({ action, running: false });
    action.plan().then(
      (plan) => setOpen((current) => (current?.action === action ? { ...current, plan } : current)),
      (error: unknown) => setOpen((current) => (current?.action === action ? { ...current, error } : current)),
    );
  };

  const confirm = async (current: Open) => {
    setOpen({ ...current, running: true, error: undefined });
    try {
      const started = await current.action.run(current.plan?.confirmationToken ?? undefined);
      setOpen(null);
      notify.success(startedNotice(current.action.header, started));
      onStarted(started);
    } catch (error) {
      setOpen({ ...current, running: false, error });
    }
  };

  const modal = open && (
    <Modal
      visible
      size="large"
      header={open.action.header}
      onDismiss={() => setOpen(null)}
      footer={
        <Box float="right">
          <SpaceBetween direction="horizontal" size="xs">
            <Button variant="link" onClick={() => setOpen(null)}>
              Cancel
            </Button>
            <Button
              variant="primary"
              loading={open.running}
              disabled={!open.plan || refused(open.plan)}
              onClick={() => void confirm(open)}
            >
              {open.action.confirmLabel}
            </Button>
          </SpaceBetween>
        </Box>
      }
    >
      <SpaceBetween size="m">
        <ErrorAlert error={open.error} />
        {open.plan ? <PlanDetails plan={open.plan} /> : !open.error && <StatusIndicator type="loading">Planning</StatusIndicator>}
      </SpaceBetween>
    </Modal>
  );
  return { start, modal };
}
