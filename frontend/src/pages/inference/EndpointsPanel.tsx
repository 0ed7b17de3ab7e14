/**
 * Managed endpoints (`/clusters/{tag}/endpoints`), a panel of the Inference page: the cluster's
 * InferenceEndpointConfigs and JumpStartModels with their state (re-read every 2 s while one is changing);
 * **Create endpoint** (`?endpointAction=create`, operator) opens the form for either kind; choosing an endpoint
 * (`?endpoint=<name>`) shows its detail — state, conditions, workers, SageMaker endpoint —, **Chat** (once
 * DeploymentComplete) opens the page's chat on it, and **Delete** shows the API's plan before it deletes.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Container from "@cloudscape-design/components/container";
import Header from "@cloudscape-design/components/header";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import { useEffect, useState } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Status } from "../../components/status";
import { useResource } from "../../hooks/useResource";
import { usePlannedAction } from "../cluster/plan";
import { useQueryParam } from "../cluster/query";
import { EndpointForm } from "./EndpointsPanelForm";
import { inferencePath } from "./paths";
import { POLL_MS, SETTLED_ENDPOINT_STATES, useEndpoints } from "./useModelServing";

type State = Schemas["EndpointState"];

export function EndpointState({ state }: { state: State }) {
  return <Status value={state} />;
}

/** Re-read `reload` every 2 s while `changing`. */
function usePolling(changing: boolean, reload: () => void, data: unknown) {
  useEffect(() => {
    if (!changing) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [changing, reload, data]);
}

export function EndpointsPanel({ clusterTag }: { clusterTag: string }) {
  const { identity } = useApp();
  const [action, setAction] = useQueryParam("endpointAction");
  const [selected, setSelected] = useQueryParam("endpoint");
  const endpoints = useEndpoints(clusterTag);
  const mayCreate = identity.mayCall("POST /clusters/{clusterTag}/endpoints");
  const [, setParams] = useSearchParams();
  const created = (name: string) => {
    // One URL update: two setters in a row would each start from the same URL, the second undoing the first.
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete("endpointAction");
        next.set("endpoint", name);
        return next;
      },
      { replace: true },
    );
    endpoints.reload();
  };
  if (mayCreate && action === "create") return <CreateEndpoint clusterTag={clusterTag} onCreated={created} onCancel={() => setAction(null)} />;
  const chosen = (endpoints.data ?? []).find((endpoint) => endpoint.name === selected);
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={endpoints.error} header="Endpoints could not be listed" />
      <Table
        loading={endpoints.loading && !endpoints.data}
        loadingText="Loading endpoints"
        items={endpoints.data ?? []}
        trackBy="name"
        selectionType="single"
        selectedItems={chosen ? [chosen] : []}
        onSelectionChange={({ detail }) => setSelected(detail.selectedItems[0]?.name ?? null)}
        ariaLabels={{ tableLabel: "Managed endpoints", itemSelectionLabel: (_, endpoint) => `Choose ${endpoint.name}`, selectionGroupLabel: "Endpoints" }}
        empty={<Box textAlign="center">No managed endpoint yet.</Box>}
        header={
          <Header
            counter={endpoints.data ? `(${endpoints.data.length})` : undefined}
            description="InferenceEndpointConfig and JumpStartModel endpoints, run by the HyperPod inference operator and called through SageMaker."
            actions={
              <SpaceBetween size="xs" direction="horizontal">
                <Button iconName="refresh" ariaLabel="Refresh endpoints" onClick={endpoints.reload} />
                {mayCreate && (
                  <Button variant="primary" onClick={() => setAction("create")}>
                    Create endpoint
                  </Button>
                )}
              </SpaceBetween>
            }
          >
            Managed endpoints
          </Header>
        }
        columnDefinitions={[
          { id: "name", header: "Endpoint", cell: (endpoint) => endpoint.name },
          { id: "state", header: "State", cell: (endpoint) => <EndpointState state={endpoint.state} /> },
          { id: "kind", header: "Kind", cell: (endpoint) => endpoint.kind },
          { id: "model", header: "Model", cell: (endpoint) => endpoint.model },
          { id: "instanceType", header: "Instance type", cell: (endpoint) => endpoint.instanceType ?? "-" },
          { id: "replicas", header: "Replicas", cell: (endpoint) => endpoint.replicas },
        ]}
      />
      {selected && (
        <EndpointDetail
          key={selected}
          clusterTag={clusterTag}
          name={selected}
          onDeleted={() => {
            setSelected(null);
            endpoints.reload();
          }}
        />
      )}
    </SpaceBetween>
  );
}

function CreateEndpoint({ clusterTag, onCreated, onCancel }: { clusterTag: string; onCreated: (name: string) => void; onCancel: () => void }) {
  const { api, notify } = useApp();
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (body: Schemas["CreateEndpointRequest"]) => {
    setSubmitting(true);
    setError(undefined);
    try {
      // Without dryRun the answer is the created endpoint's detail (201), not a manifest.
      const endpoint = (await unwrap(api.POST("/clusters/{clusterTag}/endpoints", { params: { path: { clusterTag } }, body }))) as Schemas["EndpointDetail"];
      notify.success(`Endpoint ${endpoint.name} created; it is deploying.`);
      onCreated(endpoint.name);
    } catch (reason) {
      setError(reason);
      setSubmitting(false);
    }
  };
  return (
    <SpaceBetween size="m">
      <Header variant="h2" description={`A managed inference endpoint on cluster ${clusterTag}.`}>
        Create endpoint
      </Header>
      <EndpointForm clusterTag={clusterTag} submitting={submitting} error={error} onSubmit={(body) => void submit(body)} onCancel={onCancel} />
    </SpaceBetween>
  );
}

function EndpointDetail({ clusterTag, name, onDeleted }: { clusterTag: string; name: string; onDeleted: () => void }) {
  const { api, identity } = useApp();
  const navigate = useNavigate();
  const path = { clusterTag, name };
  const endpoint = useResource(
    (signal) => unwrap(api.GET("/clusters/{clusterTag}/endpoints/{name}", { params: { path }, signal })),
    [api, clusterTag, name],
  );
  usePolling(endpoint.data !== undefined && !SETTLED_ENDPOINT_STATES.has(endpoint.data.state), endpoint.reload, endpoint.data);
  const planned = usePlannedAction(onDeleted);
  const remove = () =>
    planned.start({
      header: `Delete endpoint ${name}`,
      confirmLabel: "Delete endpoint",
      plan: () => unwrap(api.DELETE("/clusters/{clusterTag}/endpoints/{name}", { params: { path, query: { dryRun: true } } })),
      run: (confirmationToken) => unwrap(api.DELETE("/clusters/{clusterTag}/endpoints/{name}", { params: { path, query: { confirmationToken } } })),
    });
  if (!endpoint.data) return <ErrorAlert error={endpoint.error} header={`Endpoint ${name} could not be read`} />;
  const data = endpoint.data;
  return (
    <SpaceBetween size="m">
      {planned.modal}
      <Container
        header={
          <Header
            variant="h2"
            actions={
              <SpaceBetween size="xs" direction="horizontal">
                <Button iconName="refresh" ariaLabel="Refresh endpoint" onClick={endpoint.reload} />
                {data.state === "DeploymentComplete" && (
                  <Button ariaLabel={`Chat with ${name}`} onClick={() => navigate(inferencePath(clusterTag, "chat", { kind: "endpoint", name }))}>
                    Chat
                  </Button>
                )}
                {identity.mayCall("DELETE /clusters/{clusterTag}/endpoints/{name}") && <Button onClick={remove}>Delete</Button>}
              </SpaceBetween>
            }
          >
            {data.name}
          </Header>
        }
      >
        <KeyValuePairs
          columns={4}
          items={[
            { label: "State", value: <EndpointState state={data.state} /> },
            { label: "Kind", value: data.kind },
            { label: "Model", value: data.model },
            { label: "SageMaker endpoint", value: data.sageMakerEndpointName ?? "-" },
            { label: "Workers ready", value: `${data.readyReplicas ?? 0} of ${data.replicas}` },
            { label: "Instance type", value: data.instanceType ?? "-" },
            { label: "Routing", value: data.routing ?? "none" },
            { label: "L2 cache", value: data.l2Cache ?? "none" },
          ]}
        />
      </Container>
      <Table
        header={<Header variant="h2">Conditions</Header>}
        items={data.conditions ?? []}
        empty={<Box textAlign="center">No condition reported yet.</Box>}
        columnDefinitions={[
          { id: "type", header: "Type", cell: (condition) => condition.type },
          { id: "status", header: "Status", cell: (condition) => condition.status },
          { id: "reason", header: "Reason", cell: (condition) => condition.reason ?? "-" },
          { id: "message", header: "Message", cell: (condition) => condition.message ?? "-" },
        ]}
      />
      <Table
        header={<Header variant="h2" counter={`(${(data.pods ?? []).length})`}>Workers</Header>}
        items={data.pods ?? []}
        trackBy="name"
        empty={<Box textAlign="center">No worker yet.</Box>}
        columnDefinitions={[
          { id: "name", header: "Pod", cell: (pod) => pod.name },
          { id: "node", header: "Node", cell: (pod) => pod.node ?? "not scheduled" },
          { id: "phase", header: "Status", cell: (pod) => pod.phase },
        ]}
      />
    </SpaceBetween>
  );
}
