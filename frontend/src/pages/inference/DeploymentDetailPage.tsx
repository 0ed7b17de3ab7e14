/**
 * One self-managed model server (`/clusters/{tag}/inference/deployments/{name}`): its settings, replicas ready, serving
 * command and pods with their node and readiness, re-read while it is Loading or Queued (a team's server whose pods
 * Kueue holds: a Queued badge with why). Delete (operator) shows the API's plan and asks for the server's name.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Header from "@cloudscape-design/components/header";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Spinner from "@cloudscape-design/components/spinner";
import Table from "@cloudscape-design/components/table";
import { useEffect } from "react";
import { useNavigate, useParams } from "react-router-dom";
import { unwrap } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { QueueStatus, Status } from "../../components/status";
import { useResource } from "../../hooks/useResource";
import { useDeleteModelServer } from "./deleteModelServer";
import { inferencePath } from "./paths";
import { POLL_MS } from "./useModelServing";

export default function DeploymentDetailPage() {
  const params = useParams();
  const clusterTag = params.clusterTag ?? "";
  const name = params.name ?? "";
  const { api } = useApp();
  const navigate = useNavigate();
  const server = useResource(
    (signal) => unwrap(api.GET("/clusters/{clusterTag}/deployments/{name}", { params: { path: { clusterTag, name } }, signal })),
    [api, clusterTag, name],
  );
  const { reload } = server;
  const loading = server.data?.status === "Loading" || server.data?.status === "Queued";
  useEffect(() => {
    if (!loading) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [loading, server.data, reload]);
  const deletion = useDeleteModelServer(clusterTag, () => navigate(inferencePath(clusterTag, "deployments")));

  if (!server.data) return server.error ? <ErrorAlert error={server.error} header="The model server could not be read" /> : <Spinner size="large" />;
  const data = server.data;
  return (
    <SpaceBetween size="m">
      <Header
        variant="h1"
        description={<QueueStatus value={data.status} waitingReason={data.waitingReason} />}
        actions={
          <SpaceBetween size="xs" direction="horizontal">
            <Button iconName="refresh" ariaLabel="Refresh model server" onClick={reload} />
            {deletion.allowed && <Button onClick={() => deletion.start(name)}>Delete</Button>}
          </SpaceBetween>
        }
      >
        {data.name}
      </Header>
      <ErrorAlert error={server.error} header="The model server could not be re-read" />
      <Container header={<Header variant="h2">Model server</Header>}>
        <KeyValuePairs
          columns={4}
          items={[
            { label: "Status", value: <QueueStatus value={data.status} waitingReason={data.waitingReason} /> },
            { label: "Ready / replicas", value: `${data.readyReplicas} / ${data.replicas}` },
            { label: "GPUs per replica", value: data.gpus },
            { label: "Instance type", value: data.instanceType ?? "-" },
            { label: "Model", value: data.model ?? "-" },
            { label: "Engine", value: data.engine },
            { label: "Service type", value: data.serviceType },
            { label: "Port", value: data.port },
            { label: "Image", value: data.image },
            { label: "Namespace", value: data.namespace },
            { label: "Model source", value: data.modelSourceUri ?? "-" },
            { label: "Created", value: data.createdAt ? new Date(data.createdAt).toLocaleString() : "-" },
          ]}
        />
      </Container>
      <Container header={<Header variant="h2">Serving command</Header>}>
        <Box variant="code">{data.command.join(" ")}</Box>
      </Container>
      <Table
        header={<Header variant="h2" counter={`(${data.pods.length})`}>Pods</Header>}
        items={data.pods}
        trackBy="name"
        empty={<Box textAlign="center">No pod yet.</Box>}
        columnDefinitions={[
          { id: "name", header: "Pod", cell: (pod) => pod.name },
          { id: "node", header: "Node", cell: (pod) => pod.node ?? "not scheduled" },
          { id: "ready", header: "Ready", cell: (pod) => <Status value={pod.queued ? "Queued" : pod.ready ? "Ready" : "Loading"} /> },
          { id: "service", header: "Bound to service", cell: (pod) => pod.service ?? "-" },
        ]}
      />
      {deletion.modal}
    </SpaceBetween>
  );
}
