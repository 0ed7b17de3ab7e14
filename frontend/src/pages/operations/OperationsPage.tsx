/** Operations: every operation of every cluster (or of one), newest first, with status, stages, duration and actor. */
import { useCollection } from "@cloudscape-design/collection-hooks";
import Box from "@cloudscape-design/components/box";
import Button from "@cloudscape-design/components/button";
import Header from "@cloudscape-design/components/header";
import Pagination from "@cloudscape-design/components/pagination";
import ProgressBar from "@cloudscape-design/components/progress-bar";
import Select, { type SelectProps } from "@cloudscape-design/components/select";
import SpaceBetween from "@cloudscape-design/components/space-between";
import Table from "@cloudscape-design/components/table";
import TextFilter from "@cloudscape-design/components/text-filter";
import { useSearchParams } from "react-router-dom";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { RouterLink } from "../../components/links";
import { STAGES_BAR_WIDTH, Status } from "../../components/status";
import type { Operation } from "../../hooks/useOperation";
import { allPages, useResource } from "../../hooks/useResource";
import { formatTime, operationDuration, stagesDone } from "./format";
import { paginationLabels } from "../../components/labels";

type Cluster = Schemas["ClusterView"];
const STATUSES: Operation["status"][] = ["PENDING", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"];
const ALL = { value: "", label: "All" };
const NO_MATCH = "No operation matches the filters.";
/** Wide enough for a filter's inline label and its value, so neither breaks inside a word. */
const FILTER_SELECT_WIDTH = 220;

export default function OperationsPage() {
  const { api } = useApp();
  const [params, setParams] = useSearchParams();
  const clusterTag = params.get("clusterTag") ?? "";
  const status = params.get("status") ?? "";
  const text = params.get("filter") ?? "";
  const setParam = (name: string, value: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );

  const clusters = useResource(
    (signal) =>
      allPages<Cluster>(async (next) => {
        const page = await unwrap(api.GET("/clusters", { params: { query: { limit: 100, continue: next } }, signal }));
        return { items: page.clusters, next: page.continue };
      }),
    [api],
  );
  const operations = useResource(
    async (signal) => {
      const tags = clusterTag ? [clusterTag] : (clusters.data ?? []).map((cluster) => cluster.clusterTag);
      const lists = await Promise.all(
        tags.map((tag) =>
          allPages<Operation>(async (next) => {
            const query = { clusterTag: tag, limit: 100, continue: next };
            const page = await unwrap(api.GET("/operations", { params: { query }, signal }));
            return { items: page.operations, next: page.continue };
          }, 200),
        ),
      );
      return lists.flat();
    },
    [api, clusterTag, clusters.data],
  );
  const byStatus = (operations.data ?? []).filter((operation) => !status || operation.status === status);
  const { items, collectionProps, filterProps, paginationProps, filteredItemsCount } = useCollection(byStatus, {
    filtering: {
      filteringFunction: (operation, filteringText) =>
        [operation.operationId, operation.kind, operation.target, operation.actor, operation.status]
          .join(" ")
          .toLowerCase()
          .includes(filteringText.toLowerCase()),
      defaultFilteringText: text,
      empty: <Box textAlign="center">{status || clusterTag ? NO_MATCH : "No operations yet."}</Box>,
      noMatch: <Box textAlign="center">{NO_MATCH}</Box>,
    },
    pagination: { pageSize: 20 },
    sorting: { defaultState: { sortingColumn: { sortingField: "createdAt" }, isDescending: true } },
  });
  const clusterOptions: SelectProps.Option[] = [
    ALL,
    ...(clusters.data ?? []).map((cluster) => ({ value: cluster.clusterTag, label: cluster.clusterTag })),
  ];
  const statusOptions: SelectProps.Option[] = [ALL, ...STATUSES.map((value) => ({ value, label: value }))];
  const selected = (options: SelectProps.Option[], value: string) =>
    options.find((option) => option.value === value) ?? { value, label: value };

  return (
    <SpaceBetween size="m">
      <ErrorAlert error={clusters.error} header="Clusters could not be listed" />
      <ErrorAlert error={operations.error} header="Operations could not be listed" />
      <Table
        {...collectionProps}
        variant="full-page"
        loading={clusters.loading || operations.loading}
        loadingText="Loading operations"
        items={items}
        trackBy="operationId"
        header={
          <Header
            variant="awsui-h1-sticky"
            counter={operations.data ? `(${byStatus.length})` : undefined}
            actions={<Button iconName="refresh" ariaLabel="Refresh" onClick={operations.reload} />}
          >
            Operations
          </Header>
        }
        filter={
          <SpaceBetween size="s" direction="horizontal">
            <TextFilter
              {...filterProps}
              onChange={(event) => {
                filterProps.onChange(event);
                setParam("filter", event.detail.filteringText);
              }}
              filteringPlaceholder="Find operations"
              countText={`${filteredItemsCount ?? 0} matches`}
            />
            <div style={{ minWidth: FILTER_SELECT_WIDTH }}>
              <Select
                inlineLabelText="Cluster"
                options={clusterOptions}
                selectedOption={selected(clusterOptions, clusterTag)}
                onChange={(event) => setParam("clusterTag", event.detail.selectedOption.value ?? "")}
              />
            </div>
            <div style={{ minWidth: FILTER_SELECT_WIDTH }}>
              <Select
                inlineLabelText="Status"
                options={statusOptions}
                selectedOption={selected(statusOptions, status)}
                onChange={(event) => setParam("status", event.detail.selectedOption.value ?? "")}
              />
            </div>
          </SpaceBetween>
        }
        pagination={<Pagination {...paginationProps} ariaLabels={paginationLabels("operations")} />}
        columnDefinitions={[
          {
            id: "operationId",
            header: "Operation",
            cell: (operation) => (
              <RouterLink href={`/operations/${encodeURIComponent(operation.operationId)}`}>{operation.operationId}</RouterLink>
            ),
          },
          { id: "status", header: "Status", sortingField: "status", cell: (operation) => <Status value={operation.status} /> },
          { id: "kind", header: "Kind", sortingField: "kind", cell: (operation) => operation.kind },
          {
            id: "target",
            header: "Cluster",
            sortingField: "target",
            cell: (operation) => (
              <RouterLink href={`/clusters/${encodeURIComponent(operation.target)}`}>{operation.target}</RouterLink>
            ),
          },
          {
            id: "stages",
            header: "Stages",
            minWidth: STAGES_BAR_WIDTH,
            cell: (operation) => (
              <ProgressBar
                value={operation.stages.length ? (100 * stagesDone(operation)) / operation.stages.length : 0}
                description={`${stagesDone(operation)} of ${operation.stages.length} done`}
                ariaLabel={`Stages done for ${operation.operationId}`}
              />
            ),
          },
          { id: "duration", header: "Duration", cell: (operation) => operationDuration(operation) },
          { id: "actor", header: "Actor", sortingField: "actor", cell: (operation) => operation.actor },
          { id: "createdAt", header: "Started", sortingField: "createdAt", cell: (operation) => formatTime(operation.createdAt) },
        ]}
      />
    </SpaceBetween>
  );
}
