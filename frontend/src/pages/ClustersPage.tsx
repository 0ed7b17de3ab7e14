/**
 * Clusters: every registry entry with its status (a half-built one says where its create failed), stage progress and
 * last operation; create and import start here, and an empty list says so.
 */
import { useCollection } from "@cloudscape-design/collection-hooks";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import Pagination from "@cloudscape-design/components/pagination";
import ProgressBar from "@cloudscape-design/components/progress-bar";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import TextFilter from "@cloudscape-design/components/text-filter";
import { useNavigate } from "react-router-dom";
import { unwrap, type Schemas } from "../api/client";
import { useApp } from "../app-context";
import { ErrorAlert } from "../components/ErrorAlert";
import { RouterLink } from "../components/links";
import { regionName } from "../components/regions";
import { ClusterStatus, STAGES_BAR_WIDTH, Status } from "../components/status";
import { allPages, useResource } from "../hooks/useResource";
import { paginationLabels } from "../components/labels";

type Cluster = Schemas["ClusterView"];

/** The stages a full creation runs, in order (POST /clusters). */
export const CREATION_STAGES = ["eks", "dependencies", "hyperpod", "storage"];

export default function ClustersPage() {
  const { api, identity } = useApp();
  const navigate = useNavigate();
  const clusters = useResource(
    (signal) =>
      allPages<Cluster>(async (next) => {
        const page = await unwrap(api.GET("/clusters", { params: { query: { limit: 100, continue: next } }, signal }));
        return { items: page.clusters, next: page.continue };
      }),
    [api],
  );
  const mayCreate = identity.mayCall("POST /clusters");
  const { items, collectionProps, filterProps, paginationProps, filteredItemsCount } = useCollection(clusters.data ?? [], {
    filtering: {
      empty: (
        <Box textAlign="center" color="inherit">
          <SpaceBetween size="xxs">
            <Box variant="strong" color="inherit">
              No clusters
            </Box>
            <Box variant="p" color="inherit">
              {mayCreate ? "Create a HyperPod cluster on EKS: network, EKS, dependencies, HyperPod and storage, in stages." : "An admin or operator creates the first cluster."}
            </Box>
            {mayCreate && <Button onClick={() => navigate("/clusters/create")}>Create cluster</Button>}
          </SpaceBetween>
        </Box>
      ),
      noMatch: <Box textAlign="center">No cluster matches the filter.</Box>,
    },
    pagination: { pageSize: 20 },
    sorting: { defaultState: { sortingColumn: { sortingField: "createdAt" }, isDescending: true } },
  });
  return (
    <SpaceBetween size="m">
      <ErrorAlert error={clusters.error} header="Clusters could not be listed" />
      <Table
        {...collectionProps}
        variant="full-page"
        loading={clusters.loading}
        loadingText="Loading clusters"
        items={items}
        trackBy="clusterTag"
        header={
          <Header
            variant="awsui-h1-sticky"
            counter={clusters.data ? `(${clusters.data.length})` : undefined}
            actions={
              <SpaceBetween size="xs" direction="horizontal">
                <Button iconName="refresh" ariaLabel="Refresh" onClick={clusters.reload} />
                {identity.mayCall("POST /clusters/import") && <Button onClick={() => navigate("/clusters/import")}>Import cluster</Button>}
                {mayCreate && (
                  <Button variant="primary" onClick={() => navigate("/clusters/create")}>
                    Create cluster
                  </Button>
                )}
              </SpaceBetween>
            }
          >
            Clusters
          </Header>
        }
        filter={
          <TextFilter {...filterProps} filteringPlaceholder="Find clusters" countText={`${filteredItemsCount ?? 0} matches`} />
        }
        pagination={<Pagination {...paginationProps} ariaLabels={paginationLabels("clusters")} />}
        columnDefinitions={[
          {
            id: "clusterTag",
            header: "Cluster tag",
            sortingField: "clusterTag",
            cell: (cluster) => <RouterLink href={`/clusters/${encodeURIComponent(cluster.clusterTag)}`}>{cluster.clusterTag}</RouterLink>,
          },
          { id: "status", header: "Status", sortingField: "status", cell: (cluster) => <ClusterStatus cluster={cluster} /> },
          {
            id: "stages",
            header: "Stages",
            minWidth: STAGES_BAR_WIDTH,
            cell: (cluster) => (
              <ProgressBar
                value={(100 * CREATION_STAGES.filter((stage) => cluster.stagesDone.includes(stage)).length) / CREATION_STAGES.length}
                description={cluster.stagesDone.length ? cluster.stagesDone.join(", ") : "none done"}
                ariaLabel={`Stages done for ${cluster.clusterTag}`}
              />
            ),
          },
          { id: "region", header: "Region", sortingField: "region", cell: (cluster) => regionName(cluster.region) },
          { id: "kubernetesVersion", header: "Kubernetes", cell: (cluster) => cluster.kubernetesVersion },
          { id: "operation", header: "Last operation", cell: (cluster) => <LastOperation cluster={cluster} /> },
          { id: "createdAt", header: "Created", sortingField: "createdAt", cell: (cluster) => new Date(cluster.createdAt).toLocaleString() },
        ]}
      />
    </SpaceBetween>
  );
}

/** The operation running on the cluster, else how its last one ended; its kind links to the operation's page. */
function LastOperation({ cluster }: { cluster: Cluster }) {
  const link = (operationId: string, text: string) => <RouterLink href={`/operations/${encodeURIComponent(operationId)}`}>{text}</RouterLink>;
  if (cluster.activeOperationId) {
    return (
      <SpaceBetween size="xxs">
        <Status value="RUNNING" />
        <Box variant="small">{link(cluster.activeOperationId, "running operation")}</Box>
      </SpaceBetween>
    );
  }
  const last = cluster.lastOperation;
  if (!last) return <>-</>;
  return (
    <SpaceBetween size="xxs">
      <Status value={last.status} />
      <Box variant="small">{link(last.operationId, last.kind)}</Box>
    </SpaceBetween>
  );
}
