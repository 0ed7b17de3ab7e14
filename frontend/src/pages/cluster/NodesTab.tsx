/**
 * Nodes tab: the HyperPod nodes with health, capacity type and AZ (every page of `continue`), filtered by `?filter=`;
 * reboot, replace or delete one node (its own route) or a selection (`POST …/nodes/batch`), each through the API's
 * plan and confirmation (a reboot too: it stops the node's pods). Deep health checks on a selection
 * (`POST …/health-checks`) go through the same plan: the nodes leave scheduling, and a failing one is replaced.
 */
import { useCollection } from "@cloudscape-design/collection-hooks";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import Pagination from "@cloudscape-design/components/pagination";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import TextFilter from "@cloudscape-design/components/text-filter";
import type { RouteKey } from "../../api/contract.gen";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Status } from "../../components/status";
import { allPages, useResource } from "../../hooks/useResource";
import { sent, usePlannedAction } from "./plan";
import type { Answer } from "./PlanDetails";
import { useQueryParam } from "./query";
import type { ClusterTabProps } from "./tabs";
import { paginationLabels } from "../../components/labels";

type Node = Schemas["NodeView"];
type NodeAction = Schemas["NodeBatchRequest"]["action"];

/** Each action with its single-node route, whose required role decides who is offered it. */
export const NODE_ACTIONS: { action: NodeAction; route: RouteKey; label: string }[] = [
  { action: "reboot", route: "POST /clusters/{clusterTag}/nodes/{nodeId}/reboot", label: "Reboot" },
  { action: "replace", route: "POST /clusters/{clusterTag}/nodes/{nodeId}/replace", label: "Replace" },
  { action: "delete", route: "DELETE /clusters/{clusterTag}/nodes/{nodeId}", label: "Delete" },
];

const HEALTH_CHECK_ROUTE: RouteKey = "POST /clusters/{clusterTag}/health-checks";

export default function NodesTab({ cluster, reload }: ClusterTabProps) {
  const { api, identity } = useApp();
  const clusterTag = cluster.clusterTag;
  const [filter, setFilter] = useQueryParam("filter");
  const nodes = useResource(
    (signal) =>
      allPages<Node>(async (next) => {
        const page = await unwrap(
          api.GET("/clusters/{clusterTag}/nodes", { params: { path: { clusterTag }, query: { limit: 100, continue: next } }, signal }),
        );
        return { items: page.nodes, next: page.continue };
      }),
    [api, clusterTag],
  );
  const refresh = () => {
    nodes.reload();
    reload();
  };
  const planned = usePlannedAction(refresh, refresh);
  const { items, collectionProps, filterProps, paginationProps, filteredItemsCount, actions } = useCollection(nodes.data ?? [], {
    filtering: {
      defaultFilteringText: filter ?? "",
      empty: <Box textAlign="center">No node yet.</Box>,
      noMatch: <Box textAlign="center">No node matches the filter.</Box>,
    },
    pagination: { pageSize: 50 },
    selection: { trackBy: "nodeId", keepSelection: false },
    sorting: {},
  });
  const selected = collectionProps.selectedItems ?? [];
  const allowed = NODE_ACTIONS.filter((item) => identity.mayCall(item.route));

  const healthCheck = (chosen: readonly Node[]) => {
    const nodeIds = chosen.map((node) => node.nodeId);
    const call = (confirmationToken?: string): Promise<Answer> =>
      unwrap(
        api.POST("/clusters/{clusterTag}/health-checks", {
          params: { path: { clusterTag } },
          body: sent<Schemas["StartHealthCheckRequest"]>(confirmationToken ? { nodeIds, confirmationToken } : { nodeIds }),
        }),
      );
    planned.start({
      header: `Deep health check of ${nodeIds.length === 1 ? `node ${nodeIds[0]}` : `${nodeIds.length} nodes`}`,
      confirmLabel: "Run checks",
      plan: () => call(),
      run: (token) => call(token),
    });
  };

  const act = (action: NodeAction, label: string, chosen: readonly Node[]) => {
    const nodeIds = chosen.map((node) => node.nodeId);
    const [single] = nodeIds;
    const header = `${label} ${nodeIds.length === 1 ? `node ${single}` : `${nodeIds.length} nodes`}`;
    const call = (dryRun: boolean, confirmationToken?: string): Promise<Answer> => {
      if (nodeIds.length > 1) {
        return unwrap(
          api.POST("/clusters/{clusterTag}/nodes/batch", {
            params: { path: { clusterTag }, query: dryRun ? { dryRun } : {} },
            body: confirmationToken ? { action, nodeIds, confirmationToken } : { action, nodeIds },
          }),
        );
      }
      const path = { clusterTag, nodeId: single };
      const query = dryRun ? { dryRun } : { confirmationToken };
      if (action === "reboot") return unwrap(api.POST("/clusters/{clusterTag}/nodes/{nodeId}/reboot", { params: { path, query } }));
      if (action === "replace") return unwrap(api.POST("/clusters/{clusterTag}/nodes/{nodeId}/replace", { params: { path, query } }));
      return unwrap(api.DELETE("/clusters/{clusterTag}/nodes/{nodeId}", { params: { path, query } }));
    };
    planned.start({ header, confirmLabel: label, plan: () => call(true), run: (token) => call(false, token) });
  };

  return (
    <SpaceBetween size="m">
      <ErrorAlert error={nodes.error} header="Nodes could not be listed" />
      <Table
        {...collectionProps}
        selectionType={allowed.length || identity.mayCall(HEALTH_CHECK_ROUTE) ? "multi" : undefined}
        loading={nodes.loading}
        loadingText="Loading nodes"
        items={items}
        trackBy="nodeId"
        wrapLines
        ariaLabels={{
          selectionGroupLabel: "Node selection",
          itemSelectionLabel: (_, node) => `Select ${node.nodeId}`,
          allItemsSelectionLabel: () => "Select every node",
        }}
        header={
          <Header
            counter={nodes.data ? `(${selected.length ? `${selected.length}/` : ""}${nodes.data.length})` : undefined}
            actions={
              <SpaceBetween size="xs" direction="horizontal">
                <Button iconName="refresh" ariaLabel="Refresh nodes" onClick={nodes.reload} />
                {allowed.map((item) => (
                  <Button
                    key={item.action}
                    disabled={selected.length === 0 || selected.length > 25}
                    onClick={() => {
                      act(item.action, item.label, selected);
                      actions.setSelectedItems([]);
                    }}
                  >
                    {item.label}
                  </Button>
                ))}
                {identity.mayCall(HEALTH_CHECK_ROUTE) && (
                  <Button
                    disabled={selected.length === 0 || selected.length > 100}
                    onClick={() => {
                      healthCheck(selected);
                      actions.setSelectedItems([]);
                    }}
                  >
                    Deep health check
                  </Button>
                )}
              </SpaceBetween>
            }
            description="Select one node or up to 25 for a batch."
          >
            Nodes
          </Header>
        }
        filter={
          <TextFilter
            {...filterProps}
            onChange={(event) => {
              filterProps.onChange(event);
              setFilter(event.detail.filteringText);
            }}
            filteringPlaceholder="Find nodes"
            countText={`${filteredItemsCount ?? 0} matches`}
          />
        }
        pagination={<Pagination {...paginationProps} ariaLabels={paginationLabels("nodes")} />}
        columnDefinitions={[
          { id: "nodeId", header: "Node", sortingField: "nodeId", cell: (node) => node.nodeId },
          { id: "instanceGroup", header: "Instance group", sortingField: "instanceGroup", cell: (node) => node.instanceGroup },
          { id: "instanceType", header: "Instance type", cell: (node) => node.instanceType },
          { id: "status", header: "Status", sortingField: "status", cell: (node) => <Status value={node.status} detail={node.statusMessage} vocabulary="machine" /> },
          { id: "health", header: "Health", sortingField: "health", cell: (node) => <Health node={node} /> },
          { id: "ready", header: "Kubernetes", cell: (node) => (node.ready == null ? "not registered" : node.ready ? "Ready" : "NotReady") },
          { id: "capacityType", header: "Capacity", sortingField: "capacityType", cell: (node) => node.capacityType },
          { id: "availabilityZone", header: "Availability Zone", sortingField: "availabilityZone", cell: (node) => node.availabilityZone ?? "-" },
          { id: "launchTime", header: "Launched", cell: (node) => (node.launchTime ? new Date(node.launchTime).toLocaleString() : "-") },
        ]}
      />
      {planned.modal}
    </SpaceBetween>
  );
}

/** HyperPod's node-health-status label as the API reports it. */
function Health({ node }: { node: Node }) {
  return <Status value={node.health ?? "unknown"} />;
}
