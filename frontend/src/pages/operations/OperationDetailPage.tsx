/**
 * One operation: its stages with timestamps (kept current by long polling), the error with the step that failed,
 * its attempts (each run's own error and stages), and Resume or Cancel for a role the API allows them to (a destructive operation's Resume shows its plan first).
 */
import Alert from "@cloudscape-design/components/alert";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Header from "@cloudscape-design/components/header";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Spinner from "@cloudscape-design/components/spinner";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { useParams } from "react-router-dom";
import { unwrap } from "../../api/client";
import { TERMINAL_STATUSES } from "../../api/contract.gen";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { RouterLink } from "../../components/links";
import { Status } from "../../components/status";
import { useOperation } from "../../hooks/useOperation";
import { usePlannedAction } from "../cluster/plan";
import { Attempts, stepItem } from "./Attempts";
import { formatTime, operationDuration } from "./format";
import { resumePlan } from "./resume";

export default function OperationDetailPage() {
  const { operationId } = useParams();
  const { api, identity, notify } = useApp();
  const { operation, error, reload } = useOperation(operationId);
  const [busy, setBusy] = useState<"resume" | "cancel">();
  const planned = usePlannedAction(reload);
  if (error && !operation) return <ErrorAlert error={error} header="The operation could not be read" />;
  if (!operation) return <Spinner size="large" />;

  const path = { operationId: operation.operationId };
  const act = async (action: "resume" | "cancel") => {
    setBusy(action);
    try {
      if (action === "resume") await unwrap(api.POST("/operations/{operationId}/resume", { params: { path } }));
      else await unwrap(api.POST("/operations/{operationId}/cancel", { params: { path } }));
      notify.success(`${operation.operationId}: ${action === "resume" ? "resumed" : "cancelled"}.`);
      reload();
    } catch (reason) {
      notify.error(reason, `The operation could not be ${action === "resume" ? "resumed" : "cancelled"}`);
    } finally {
      setBusy(undefined);
    }
  };
  const terminal = TERMINAL_STATUSES.has(operation.status);
  const canResume = operation.status === "FAILED" || operation.status === "CANCELLED";
  return (
    <SpaceBetween size="l">
      <Header
        variant="h1"
        description={`${operation.kind} on ${operation.target}`}
        actions={
          <SpaceBetween size="xs" direction="horizontal">
            {!terminal && identity.mayCall("POST /operations/{operationId}/cancel") && (
              <Button loading={busy === "cancel"} onClick={() => void act("cancel")}>
                Cancel
              </Button>
            )}
            {canResume && identity.mayCall("POST /operations/{operationId}/resume") && (
              <Button
                variant="primary"
                loading={busy === "resume"}
                onClick={() =>
                  operation.destructive ? planned.start(resumePlan(api, operation.operationId)) : void act("resume")
                }
              >
                Resume
              </Button>
            )}
          </SpaceBetween>
        }
      >
        {operation.operationId}
      </Header>
      <ErrorAlert error={error} header="The operation could not be refreshed" />
      {planned.modal}
      {operation.error && (
        <Alert type="error" header={`${operation.error.code}${operation.error.step ? ` in step "${operation.error.step}"` : ""}`}>
          {operation.error.message}
        </Alert>
      )}
      <Container header={<Header variant="h2">Details</Header>}>
        <KeyValuePairs
          columns={4}
          items={[
            { label: "Status", value: <Status value={operation.status} /> },
            { label: "Kind", value: operation.kind },
            {
              label: "Cluster",
              value: <RouterLink href={`/clusters/${encodeURIComponent(operation.target)}`}>{operation.target}</RouterLink>,
            },
            { label: "Actor", value: operation.actor },
            { label: "Started", value: formatTime(operation.createdAt) },
            { label: "Updated", value: formatTime(operation.updatedAt) },
            { label: "Duration", value: operationDuration(operation) },
            { label: "Attempt", value: operation.attempt },
            { label: "Cluster incarnation", value: operation.incarnation },
            stepItem(operation, terminal),
            {
              label: "Audit trail",
              value: (
                <RouterLink href={`/audit?operationId=${encodeURIComponent(operation.operationId)}`}>Requests about it</RouterLink>
              ),
            },
          ]}
        />
      </Container>
      <Table
        header={<Header variant="h2">Stages</Header>}
        ariaLabels={{ tableLabel: "Stages" }}
        items={operation.stages}
        trackBy="name"
        empty={<Box textAlign="center">This operation has no stages.</Box>}
        columnDefinitions={[
          { id: "name", header: "Stage", cell: (stage) => stage.name },
          { id: "status", header: "Status", cell: (stage) => <Status value={stage.status} /> },
          { id: "startedAt", header: "Started", cell: (stage) => formatTime(stage.startedAt) },
          { id: "endedAt", header: "Ended", cell: (stage) => formatTime(stage.endedAt) },
          { id: "message", header: "Message", cell: (stage) => stage.message ?? "-" },
        ]}
      />
      <Attempts operation={operation} />
    </SpaceBetween>
  );
}
