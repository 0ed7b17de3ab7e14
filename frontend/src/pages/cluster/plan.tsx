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
import FormField from "@cloudscape-design/components/form-field";
import Input from "@cloudscape-design/components/input";
import Modal from "@cloudscape-design/components/modal";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import { useState, type ReactNode } from "react";
import { ApiError, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { RouterLink } from "../../components/links";
import { PlanDetails, refused, type Answer } from "./PlanDetails";

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
  /** A name the person types to confirm (a cluster's, to delete it), as the AWS console asks. */
  typeToConfirm?: string;
}

export function OperationLink({ operationId }: { operationId: string }) {
  return <RouterLink href={`/operations/${encodeURIComponent(operationId)}`}>{operationId}</RouterLink>;
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
      else notify.success(`${current.action.header}: ${started.message ?? "nothing to change."}`);
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
      typeToConfirm={open.action.typeToConfirm}
      onCancel={() => setOpen(null)}
      onConfirm={() => void confirm(open)}
    />
  );
  return { start, modal };
}

/**
 * The dialog of a plan: its details (or the refusal, or "Planning" while it loads), the name to type when the action
 * asks for it, Cancel and the action's button.
 */
function PlanModal(props: {
  header: string;
  confirmLabel: string;
  plan?: Answer;
  error?: unknown;
  running: boolean;
  typeToConfirm?: string;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const { plan, error, typeToConfirm } = props;
  const [typed, setTyped] = useState("");
  const confirmed = !typeToConfirm || typed === typeToConfirm;
  return (
    <Modal
      visible
      size="large"
      header={props.header}
      closeAriaLabel="Close dialog"
      onDismiss={props.onCancel}
      footer={
        <Box float="right">
          <SpaceBetween direction="horizontal" size="xs">
            <Button variant="link" onClick={props.onCancel}>
              Cancel
            </Button>
            <Button variant="primary" loading={props.running} disabled={!plan || refused(plan) || !confirmed} onClick={props.onConfirm}>
              {props.confirmLabel}
            </Button>
          </SpaceBetween>
        </Box>
      }
    >
      <SpaceBetween size="m">
        <ErrorAlert error={error} />
        {plan ? <PlanDetails plan={plan} /> : !error && <StatusIndicator type="loading">Planning</StatusIndicator>}
        {plan && typeToConfirm && (
          <FormField label={`To confirm, type ${typeToConfirm}`}>
            <Input value={typed} onChange={({ detail }) => setTyped(detail.value)} placeholder={typeToConfirm} ariaRequired />
          </FormField>
        )}
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
