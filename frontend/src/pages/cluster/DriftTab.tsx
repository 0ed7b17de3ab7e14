/**
 * Drift tab: the last reconcile's findings by field path (recorded against live) and the operations stuck past
 * their deadline, each with Resume; "Check now" runs a reconcile (`POST …/drift`) for those who may.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { ApiError, unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { RouterLink } from "../../components/links";
import { useResource } from "../../hooks/useResource";
import type { ClusterTabProps } from "./tabs";

type Report = Schemas["DriftReport"];
type Finding = Schemas["DriftFinding"];
type Stuck = Schemas["StuckOperation"];

function shown(value: Finding["recorded"]): string {
  return value === null || value === undefined ? "missing" : String(value);
}

export default function DriftTab({ cluster }: ClusterTabProps) {
  const { api, identity, notify } = useApp();
  const clusterTag = cluster.clusterTag;
  const [report, setReport] = useState<Report | null>();
  const [checking, setChecking] = useState(false);
  const [resuming, setResuming] = useState<string>();
  const last = useResource(
    (signal) =>
      unwrap(api.GET("/clusters/{clusterTag}/drift", { params: { path: { clusterTag } }, signal })).catch((reason: unknown) => {
        if (reason instanceof ApiError && reason.status === 404) return null;
        throw reason;
      }),
    [api, clusterTag],
  );
  const current = report === undefined ? last.data : report;

  const check = async () => {
    setChecking(true);
    try {
      setReport(await unwrap(api.POST("/clusters/{clusterTag}/drift", { params: { path: { clusterTag } } })));
    } catch (reason) {
      notify.error(reason, "The drift check could not run");
    } finally {
      setChecking(false);
    }
  };
  const resume = async (operationId: string) => {
    setResuming(operationId);
    try {
      await unwrap(api.POST("/operations/{operationId}/resume", { params: { path: { operationId } } }));
      notify.operation("Resume operation", operationId);
    } catch (reason) {
      notify.error(reason, "The operation could not be resumed");
    } finally {
      setResuming(undefined);
    }
  };

  if (last.error) return <ErrorAlert error={last.error} header="The drift report could not be read" />;
  return (
    <SpaceBetween size="m">
      <Table<Finding>
        loading={last.loading && report === undefined}
        loadingText="Reading the last drift check"
        items={current?.findings ?? []}
        header={
          <Header
            variant="h2"
            description={
              current
                ? `Checked ${new Date(current.checkedAt).toLocaleString()}: ${current.inSync ? "in sync" : "drift found"}.`
                : "No drift check has run yet."
            }
            actions={
              identity.mayCall("POST /clusters/{clusterTag}/drift") && (
                <Button onClick={check} loading={checking}>
                  Check now
                </Button>
              )
            }
          >
            Drift
          </Header>
        }
        columnDefinitions={[
          { id: "path", header: "Field path", cell: (item) => <Box variant="code">{item.path}</Box> },
          { id: "recorded", header: "Recorded", cell: (item) => shown(item.recorded) },
          { id: "live", header: "Live", cell: (item) => <StatusIndicator type="warning">{shown(item.live)}</StatusIndicator> },
          { id: "message", header: "What to do", cell: (item) => item.message },
        ]}
        empty={<Box textAlign="center">{current ? "No drift: every managed field is as recorded." : "Run a check to see drift."}</Box>}
      />
      <Table<Stuck>
        items={current?.stuckOperations ?? []}
        header={<Header variant="h2">Stuck operations</Header>}
        columnDefinitions={[
          {
            id: "operation",
            header: "Operation",
            cell: (item) => <RouterLink href={`/operations/${item.operationId}`}>{item.operationId}</RouterLink>,
          },
          { id: "kind", header: "Kind", cell: (item) => item.kind },
          { id: "deadline", header: "Deadline", cell: (item) => new Date(item.deadline).toLocaleString() },
          {
            id: "resume",
            header: "Action",
            cell: (item) =>
              identity.mayCall("POST /operations/{operationId}/resume") ? (
                <Button onClick={() => resume(item.operationId)} loading={resuming === item.operationId} ariaLabel={`Resume ${item.operationId}`}>
                  Resume
                </Button>
              ) : (
                item.resume
              ),
          },
        ]}
        empty={<Box textAlign="center">No operation is running past its deadline.</Box>}
      />
    </SpaceBetween>
  );
}
