/**
 * The Pool tab: warm workers of pool deployments with the service each serves; an operator binds a worker to a
 * service (created on first bind) or returns it to the pool. Both relabel the pod: it is never recreated.
 */
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import SpaceBetween from "@cloudscape-design/components/space-between";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import { useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { usePool } from "./useModelServing";

export function PoolPanel({ clusterTag }: { clusterTag: string }) {
  const { api, identity, notify } = useApp();
  const workers = usePool(clusterTag);
  const [services, setServices] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const mayAct = identity.mayCall("POST /clusters/{clusterTag}/model-pool");
  const act = async (body: Schemas["PoolActionRequest"]) => {
    setBusy(body.worker);
    setError(undefined);
    try {
      const result = await unwrap(api.POST("/clusters/{clusterTag}/model-pool", { params: { path: { clusterTag } }, body }));
      notify.success(result.message);
      workers.reload();
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={workers.error ?? error} header="The model pool could not be read or changed" />
      <Table
        loading={workers.loading && !workers.data}
        loadingText="Loading pool workers"
        items={workers.data ?? []}
        trackBy="pod"
        empty={<Box textAlign="center">No pool worker: deploy a model with the service type Model pool.</Box>}
        header={
          <Header
            counter={workers.data ? `(${workers.data.length})` : undefined}
            description="Rebinding changes the pod's business label; the pod and its loaded model stay."
            actions={<Button iconName="refresh" ariaLabel="Refresh pool workers" onClick={workers.reload} />}
          >
            Model pool
          </Header>
        }
        columnDefinitions={[
          { id: "pod", header: "Worker", cell: (item) => item.pod },
          { id: "model", header: "Model server", cell: (item) => item.model },
          { id: "ready", header: "Ready", cell: (item) => <StatusIndicator type={item.ready ? "success" : "loading"}>{item.ready ? "Ready" : "Loading"}</StatusIndicator> },
          { id: "service", header: "Bound to", cell: (item) => item.service ?? "unassigned" },
          {
            id: "actions",
            header: "",
            cell: (item) =>
              !mayAct ? null : item.service ? (
                <Button loading={busy === item.pod} ariaLabel={`Unbind ${item.pod}`} onClick={() => void act({ action: "unbind", worker: item.pod, serviceType: "internal" })}>
                  Unbind
                </Button>
              ) : (
                <SpaceBetween size="xs" direction="horizontal">
                  <Input
                    ariaLabel={`Service for ${item.pod}`}
                    placeholder="service name"
                    value={services[item.pod] ?? ""}
                    onChange={({ detail }) => setServices((current) => ({ ...current, [item.pod]: detail.value }))}
                  />
                  <Button
                    loading={busy === item.pod}
                    disabled={!services[item.pod]}
                    ariaLabel={`Bind ${item.pod}`}
                    onClick={() => void act({ action: "bind", worker: item.pod, service: services[item.pod], serviceType: "internal" })}
                  >
                    Bind
                  </Button>
                </SpaceBetween>
              ),
          },
        ]}
      />
    </SpaceBetween>
  );
}
