/**
 * The running or last operation of a cluster, live: per-stage status with start and end times (long poll through
 * `useOperation`), the failure with its step, and Resume or Cancel when the API allows them (a destructive
 * operation's Resume shows its plan first).
 */
import Alert from "@cloudscape-design/components/alert";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Header from "@cloudscape-design/components/header";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import ProgressBar from "@cloudscape-design/components/progress-bar";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { unwrap } from "../../api/client";
import { TERMINAL_STATUSES } from "../../api/contract.gen";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Status } from "../../components/status";
import { useOperation, type Operation } from "../../hooks/useOperation";
import { stepItem } from "../operations/Attempts";
import { resumePlan } from "../operations/resume";
import { OperationLink, usePlannedAction } from "./plan";

/** Resume runs a FAILED or CANCELLED operation again; cancel stops a PENDING or RUNNING one (the routes' own terms). */
const RESUMABLE: ReadonlySet<Operation["status"]> = new Set(["FAILED", "CANCELLED"]);
const CANCELLABLE: ReadonlySet<Operation["status"]> = new Set(["PENDING", "RUNNING"]);

export function time(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : "-";
}

export function OverviewOperation(props: {
  operationId: string;
  onChange: (operation: Operation) => void;
  /** The page started this operation: its end is announced even if it came before the first read. */
  startedHere?: boolean;
}) {
  const { operationId, onChange, startedHere = false } = props;
  const { api, identity, notify } = useApp();
  const { operation, error, reload } = useOperation(operationId, onChange, startedHere);
  const [busy, setBusy] = useState(false);
  const planned = usePlannedAction(reload);

  const act = async (action: "resume" | "cancel") => {
    setBusy(true);
    try {
      const params = { params: { path: { operationId } } };
      const next =
        action === "resume"
          ? await unwrap(api.POST("/operations/{operationId}/resume", params))
          : await unwrap(api.POST("/operations/{operationId}/cancel", params));
      notify.success(`Operation ${operationId}: ${action === "resume" ? "resumed" : "cancelled"}.`);
      reload();
      const followed = "operation" in next ? next.operation : "kind" in next ? next : undefined;
      if (followed) onChange(followed);
    } catch (reason) {
      notify.error(reason, `The operation could not be ${action === "resume" ? "resumed" : "cancelled"}`);
    } finally {
      setBusy(false);
    }
  };

  if (!operation) return <Container>{error ? <ErrorAlert error={error} /> : <Box>Loading operation…</Box>}</Container>;
  const done = operation.stages.filter((stage) => stage.status === "SUCCEEDED").length;
  const failedStep = operation.error?.step ? ` at step "${operation.error.step}"` : "";
  return (
    <Container
      header={
        <Header
          variant="h2"
          description={<OperationLink operationId={operation.operationId} />}
          actions={
            <SpaceBetween size="xs" direction="horizontal">
              {CANCELLABLE.has(operation.status) && identity.mayCall("POST /operations/{operationId}/cancel") && (
                <Button loading={busy} onClick={() => void act("cancel")}>
                  Cancel operation
                </Button>
              )}
              {RESUMABLE.has(operation.status) && identity.mayCall("POST /operations/{operationId}/resume") && (
                <Button
                  variant="primary"
                  loading={busy}
                  onClick={() =>
                    operation.destructive ? planned.start(resumePlan(api, operationId)) : void act("resume")
                  }
                >
                  Resume
                </Button>
              )}
            </SpaceBetween>
          }
        >
          Operation {operation.kind}
        </Header>
      }
    >
      <SpaceBetween size="l">
        <ErrorAlert error={error} header="The operation could not be followed" />
        {planned.modal}
        {operation.error && (
          <Alert type="error" header={`Failed${failedStep}: ${operation.error.code}`}>
            {operation.error.message}
          </Alert>
        )}
        <KeyValuePairs
          columns={4}
          items={[
            { label: "Status", value: <Status value={operation.status} /> },
            stepItem(operation, TERMINAL_STATUSES.has(operation.status)),
            { label: "Attempt", value: String(operation.attempt) },
            { label: "Started by", value: operation.actor },
            { label: "Created", value: time(operation.createdAt) },
            { label: "Updated", value: time(operation.updatedAt) },
          ]}
        />
        <ProgressBar
          value={operation.stages.length ? (100 * done) / operation.stages.length : 0}
          label="Stages"
          description={`${done} of ${operation.stages.length} stages succeeded`}
        />
        <Table
          variant="embedded"
          items={operation.stages}
          trackBy="name"
          ariaLabels={{ tableLabel: "Stages" }}
          columnDefinitions={[
            { id: "name", header: "Stage", cell: (stage) => stage.name },
            { id: "status", header: "Status", cell: (stage) => <Status value={stage.status} /> },
            { id: "startedAt", header: "Started", cell: (stage) => time(stage.startedAt) },
            { id: "endedAt", header: "Ended", cell: (stage) => time(stage.endedAt) },
            { id: "message", header: "Message", cell: (stage) => stage.message ?? "-" },
          ]}
        />
      </SpaceBetween>
    </Container>
  );
}
