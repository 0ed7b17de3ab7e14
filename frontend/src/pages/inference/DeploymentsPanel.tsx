/**
 * The Deployments tab: the cluster's self-managed model servers (engine, model, GPUs, replicas ready, status), found
 * by text and in pages, each opening its own page; for an operator **Deploy model** (`?action=deploy`) with the
 * command form, **Scale** for the selected server (to zero only once the operator has confirmed the plan the API
 * answers with: the server stops) and **Delete** (the plan, then the server's name typed). A deployed or scaled server
 * is followed here until it is Ready.
 */
import { useCollection } from "@cloudscape-design/collection-hooks";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import FormField from "@cloudscape-design/components/form-field";
import Header from "@cloudscape-design/components/header";
import Input from "@cloudscape-design/components/input";
import Modal from "@cloudscape-design/components/modal";
import Pagination from "@cloudscape-design/components/pagination";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import TextFilter from "@cloudscape-design/components/text-filter";
import { useState } from "react";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { paginationLabels } from "../../components/labels";
import { RouterLink } from "../../components/links";
import { QueueStatus } from "../../components/status";
import { useConfirmation } from "../cluster/plan";
import { useQueryParam } from "../cluster/query";
import { useDeleteModelServer } from "./deleteModelServer";
import { DeployForm } from "./DeployForm";
import { useDeployments } from "./useModelServing";

// What PATCH …/deployments/{name} accepts for `replicas`.
const MAX_REPLICAS = 64;

export function DeploymentsPanel({ clusterTag }: { clusterTag: string }) {
  const { api, identity, notify } = useApp();
  const [action, setAction] = useQueryParam("action");
  const deployments = useDeployments(clusterTag);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<unknown>();
  const mayDeploy = identity.mayCall("POST /clusters/{clusterTag}/deployments");
  const mayScale = identity.mayCall("PATCH /clusters/{clusterTag}/deployments/{name}");
  const [selected, setSelected] = useState<Schemas["DeploymentSummary"][]>([]);
  const [scaling, setScaling] = useState<Schemas["DeploymentSummary"]>();
  const confirmation = useConfirmation();
  const deletion = useDeleteModelServer(clusterTag, () => {
    setSelected([]);
    deployments.reload();
  });
  const { items, collectionProps, filterProps, paginationProps, filteredItemsCount } = useCollection(deployments.data ?? [], {
    filtering: {
      empty: <Box textAlign="center">No model server yet.</Box>,
      noMatch: <Box textAlign="center">No model server matches the filter.</Box>,
    },
    pagination: { pageSize: 20 },
    sorting: { defaultState: { sortingColumn: { sortingField: "name" } } },
  });
  const selectable = mayScale || deletion.allowed;
  const scale = async (name: string, replicas: number) => {
    setScaling(undefined);
    try {
      const scaled = await confirmation.confirming(`Scale ${name} to ${replicas} replicas`, "Scale", (confirmationToken) =>
        unwrap(
          api.PATCH("/clusters/{clusterTag}/deployments/{name}", {
            params: { path: { clusterTag, name }, query: confirmationToken ? { confirmationToken } : {} },
            body: { replicas },
          }),
        ),
      );
      if (!scaled) return;
      notify.success(`Model server ${name}: ${scaled.changes.replicas === "unchanged" ? "already at" : "scaled to"} ${replicas} replicas.`);
      setSelected([]);
      deployments.reload();
    } catch (reason) {
      notify.error(reason, `Model server ${name} was not scaled`);
    }
  };
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
        {...collectionProps}
        selectionType={selectable ? "single" : undefined}
        selectedItems={selected}
        onSelectionChange={({ detail }) => setSelected(detail.selectedItems)}
        ariaLabels={{ selectionGroupLabel: "Model server selection", itemSelectionLabel: (_, item) => `Select ${item.name}` }}
        loading={deployments.loading && !deployments.data}
        loadingText="Loading model servers"
        items={items}
        trackBy="name"
        filter={
          <TextFilter {...filterProps} filteringPlaceholder="Find model servers" filteringAriaLabel="Find model servers" countText={`${filteredItemsCount ?? 0} matches`} />
        }
        pagination={<Pagination {...paginationProps} ariaLabels={paginationLabels("model servers")} />}
        header={
          <Header
            counter={deployments.data ? `(${deployments.data.length})` : undefined}
            actions={
              <SpaceBetween size="xs" direction="horizontal">
                <Button iconName="refresh" ariaLabel="Refresh model servers" onClick={deployments.reload} />
                {deletion.allowed && (
                  <Button disabled={selected.length !== 1} onClick={() => deletion.start(selected[0].name)}>
                    Delete
                  </Button>
                )}
                {mayScale && (
                  <Button disabled={selected.length !== 1} onClick={() => setScaling(selected[0])}>
                    Scale
                  </Button>
                )}
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
          {
            id: "name",
            header: "Name",
            sortingField: "name",
            cell: (item) => (
              <RouterLink href={`/clusters/${encodeURIComponent(clusterTag)}/inference/deployments/${encodeURIComponent(item.name)}`}>{item.name}</RouterLink>
            ),
          },
          { id: "status", header: "Status", sortingField: "status", cell: (item) => <QueueStatus value={item.status} waitingReason={item.waitingReason} /> },
          { id: "model", header: "Model", cell: (item) => item.model ?? "-" },
          { id: "namespace", header: "Namespace", cell: (item) => item.namespace ?? "-" },
          { id: "engine", header: "Engine", cell: (item) => item.engine },
          { id: "gpus", header: "GPUs per replica", cell: (item) => item.gpus },
          { id: "replicas", header: "Ready / replicas", cell: (item) => `${item.readyReplicas} / ${item.replicas}` },
          { id: "service", header: "Service type", cell: (item) => item.serviceType },
        ]}
      />
      {scaling && (
        <ScaleDialog server={scaling} onCancel={() => setScaling(undefined)} onScale={(replicas) => void scale(scaling.name, replicas)} />
      )}
      {confirmation.modal}
      {deletion.modal}
    </SpaceBetween>
  );
}

/** The replicas to scale a model server to (0 stops it: the API then asks to confirm its plan). */
function ScaleDialog(props: { server: Schemas["DeploymentSummary"]; onCancel: () => void; onScale: (replicas: number) => void }) {
  const [value, setValue] = useState(String(props.server.replicas));
  const replicas = Number(value);
  const valid = value.trim() !== "" && Number.isInteger(replicas) && replicas >= 0 && replicas <= MAX_REPLICAS;
  return (
    <Modal
      visible
      header={`Scale ${props.server.name}`}
      closeAriaLabel="Close dialog"
      onDismiss={props.onCancel}
      footer={
        <Box float="right">
          <SpaceBetween direction="horizontal" size="xs">
            <Button variant="link" onClick={props.onCancel}>
              Cancel
            </Button>
            <Button variant="primary" disabled={!valid} onClick={() => props.onScale(replicas)}>
              Scale
            </Button>
          </SpaceBetween>
        </Box>
      }
    >
      <FormField
        label="Replicas"
        description={`Now ${props.server.replicas}, each with ${props.server.gpus} GPU(s). 0 stops the model server until it is scaled up.`}
        errorText={valid ? undefined : `A whole number from 0 to ${MAX_REPLICAS}.`}
      >
        <Input type="number" ariaLabel="Replicas" value={value} onChange={({ detail }) => setValue(detail.value)} />
      </FormField>
    </Modal>
  );
}
