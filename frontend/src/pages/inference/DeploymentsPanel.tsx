/**
 * The Deployments tab: the cluster's self-managed model servers (engine, model, GPUs, replicas ready, status), and
 * for an operator **Deploy model** (`?action=deploy`) with the command form. A deployed server is followed here
 * until it is Ready.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useQueryParam } from "../cluster/query";
import { DeployForm } from "./DeployForm";
import { useDeployments } from "./useModelServing";

const STATUS_TYPES = { Ready: "success", Loading: "loading", "Scaled to zero": "stopped" } as const;

export function DeploymentsPanel({ clusterTag }: { clusterTag: string }) {
  const { api, identity, notify } = useApp();
  const [action, setAction] = useQueryParam("action");
  const deployments = useDeployments(clusterTag);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<unknown>();
  const mayDeploy = identity.mayCall("POST /clusters/{clusterTag}/deployments");
  const deploy = async (body: Schemas["DeployModelRequest"]) => {
    setSubmitting(true);
    setError(undefined);
    try {
      await unwrap(api.POST("/clusters/{clusterTag}/deployments", { params: { path: { clusterTag } }, body }));
      notify.success(`Model server ${body.name} deployed; it is ready once its model is loaded.`);
      setAction(null);
      deployments.reload();
    } catch (reason) {
      setError(reason);
    } finally {
      setSubmitting(false);
    }
  };
  if (mayDeploy && action === "deploy") {
    return (
      <SpaceBetween size="m">
        <Header variant="h2" description="A Deployment with the GPUs you give each replica, and its Service.">
          Deploy model
        </Header>
        <DeployForm clusterTag={clusterTag} submitting={submitting} error={error} onSubmit={(body) => void deploy(body)} onCancel={() => setAction(null)} />
      </SpaceBetween>
    );
  }
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={deployments.error} header="Model servers could not be listed" />
      <Table
        loading={deployments.loading && !deployments.data}
        loadingText="Loading model servers"
        items={deployments.data ?? []}
        trackBy="name"
        empty={<Box textAlign="center">No model server yet.</Box>}
        header={
          <Header
            counter={deployments.data ? `(${deployments.data.length})` : undefined}
            actions={
              <SpaceBetween size="xs" direction="horizontal">
                <Button iconName="refresh" ariaLabel="Refresh model servers" onClick={deployments.reload} />
                {mayDeploy && (
                  <Button variant="primary" onClick={() => setAction("deploy")}>
                    Deploy model
                  </Button>
                )}
              </SpaceBetween>
            }
          >
            Model servers
          </Header>
        }
        columnDefinitions={[
          { id: "name", header: "Name", cell: (item) => item.name },
          { id: "status", header: "Status", cell: (item) => <StatusIndicator type={STATUS_TYPES[item.status]}>{item.status}</StatusIndicator> },
          { id: "model", header: "Model", cell: (item) => item.model ?? "-" },
          { id: "engine", header: "Engine", cell: (item) => item.engine },
          { id: "gpus", header: "GPUs per replica", cell: (item) => item.gpus },
          { id: "replicas", header: "Ready / replicas", cell: (item) => `${item.readyReplicas} / ${item.replicas}` },
          { id: "service", header: "Service type", cell: (item) => item.serviceType },
        ]}
      />
    </SpaceBetween>
  );
}
