/**
 * The plan-then-confirm flow every write action of the cluster tabs goes through: ask the API for the plan (dryRun,
 * or the destructive call without a token), show its actions and pre-flight checks, and on confirmation repeat the
 * call with the API's confirmationToken. The started operation is announced with a link to its page.
 *
 * A call that needs a confirmation only for some values (scaling a model server to zero, a remediation policy that
 * replaces nodes) is made at once instead (`useConfirmation`): the API refuses it with the plan and its token when the
 * person must confirm, and the same dialog shows that plan.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Modal from "@cloudscape-design/components/modal";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import { useState, type ReactNode } from "react";
import { ApiError, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Status } from "../../components/status";
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
              cell: (check) => <Status value={check.status} />,
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
 * `start(action)` loads the action's plan into a modal; Confirm runs it with the plan's token and calls `onStarted`
 * with the API's answer. The operation it started has a flash that follows it to its end, when `onSettled` runs (a
 * tab re-reads what the operation changed). Render `modal` once in the tab.
 */
export function usePlannedAction(
  onStarted: (started: Answer) => void,
  onSettled?: (operation: Schemas["OperationView"]) => void,
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
      if (started.operationId) notify.operation(current.action.header, started.operationId, onSettled);
      else notify.success(startedNotice(current.action.header, started));
      onStarted(started);
    } catch (error) {
      setOpen({ ...current, running: false, error });
    }
  };

  const modal = open && (
    <PlanModal
      header={open.action.header}
      confirmLabel={open.action.confirmLabel}
      plan={open.plan}
      error={open.error}
      running={open.running}
      onCancel={() => setOpen(null)}
      onConfirm={() => void confirm(open)}
    />
  );
  return { start, modal };
}

/** The dialog of a plan: its details (or the refusal, or "Planning" while it loads), Cancel and the action's button. */
function PlanModal(props: {
  header: string;
  confirmLabel: string;
  plan?: Answer;
  error?: unknown;
  running: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const { plan, error } = props;
  return (
    <Modal
      visible
      size="large"
      header={props.header}
      onDismiss={props.onCancel}
      footer={
        <Box float="right">
          <SpaceBetween direction="horizontal" size="xs">
            <Button variant="link" onClick={props.onCancel}>
              Cancel
            </Button>
            <Button variant="primary" loading={props.running} disabled={!plan || refused(plan)} onClick={props.onConfirm}>
              {props.confirmLabel}
            </Button>
          </SpaceBetween>
        </Box>
      }
    >
      <SpaceBetween size="m">
        <ErrorAlert error={error} />
        {plan ? <PlanDetails plan={plan} /> : !error && <StatusIndicator type="loading">Planning</StatusIndicator>}
      </SpaceBetween>
    </Modal>
  );
}

/** The plan a `ConfirmationRequired` refusal carries (the plan and its token, in `details`), else undefined. */
export function planAsked(error: unknown): Answer | undefined {
  if (!(error instanceof ApiError) || error.code !== "ConfirmationRequired") return undefined;
  const plan = error.details as Answer | null | undefined;
  return plan?.confirmationToken ? plan : undefined;
}

interface Asked {
  header: string;
  confirmLabel: string;
  plan: Answer;
  running: boolean;
  answer: (agreed: boolean) => void;
}

/**
 * `confirming(header, confirmLabel, call)` makes `call()`; when the API refuses it until the person confirms, `modal`
 * shows the plan the refusal carries and Confirm makes `call(token)`. It resolves to the call's answer, or undefined
 * when the person cancels; any other error rejects it. Render `modal` once.
 */
export function useConfirmation(): {
  confirming: <T>(header: string, confirmLabel: string, call: (confirmationToken?: string) => Promise<T>) => Promise<T | undefined>;
  modal: ReactNode;
} {
  const [asked, setAsked] = useState<Asked | null>(null);

  const confirming = async <T,>(header: string, confirmLabel: string, call: (confirmationToken?: string) => Promise<T>) => {
    try {
      return await call();
    } catch (error) {
      const plan = planAsked(error);
      if (!plan) throw error;
      const agreed = await new Promise<boolean>((answer) => setAsked({ header, confirmLabel, plan, running: false, answer }));
      if (!agreed) return undefined;
      try {
        return await call(plan.confirmationToken ?? undefined);
      } finally {
        setAsked(null);
      }
    }
  };

  const modal = asked && (
    <PlanModal
      header={asked.header}
      confirmLabel={asked.confirmLabel}
      plan={asked.plan}
      running={asked.running}
      onCancel={() => {
        setAsked(null);
        asked.answer(false);
      }}
      onConfirm={() => {
        setAsked({ ...asked, running: true });
        asked.answer(true);
      }}
    />
  );
  return { confirming, modal };
}
