/**
 * Cost tab: running instance-hours per instance group, with the on-demand list price where the capacity is on
 * demand; spot and training-plan capacity is labelled, never priced at the on-demand rate.
 */
import Box from "@cloudscape-design/components/box";
import Header from "@cloudscape-design/components/header";
import StatusIndicator from "@cloudscape-design/components/status-indicator";
import Table from "@cloudscape-design/components/table";
import { unwrap, type Schemas } from "../../api/client";
import { useApp } from "../../app-context";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useResource } from "../../hooks/useResource";
import type { ClusterTabProps } from "./tabs";

type GroupCost = Schemas["GroupCost"];

const CAPACITY_LABELS: Record<GroupCost["capacity"], string> = {
  "on-demand": "On-demand",
  spot: "Spot",
  "training-plan": "Training plan",
};

function usd(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : `$${value.toFixed(2)}`;
}

export default function CostTab({ cluster }: ClusterTabProps) {
  const { api } = useApp();
  const clusterTag = cluster.clusterTag;
  const cost = useResource((signal) => unwrap(api.GET("/clusters/{clusterTag}/cost", { params: { path: { clusterTag } }, signal })), [api, clusterTag]);
  if (cost.error) return <ErrorAlert error={cost.error} header="The cost could not be read" />;
  return (
    <Table<GroupCost>
      loading={cost.loading}
      loadingText="Reading running instances and prices"
      items={cost.data?.groups ?? []}
      header={
        <Header
          variant="h2"
          description="An estimate from list prices since each running node's launch, not a bill."
          counter={cost.data ? `(${usd(cost.data.onDemandCost)} on demand)` : undefined}
        >
          Cost
        </Header>
      }
      columnDefinitions={[
        { id: "group", header: "Instance group", cell: (item) => item.instanceGroupName },
        { id: "type", header: "Instance type", cell: (item) => item.instanceType ?? "—" },
        {
          id: "capacity",
          header: "Capacity",
          cell: (item) => (
            <StatusIndicator type={item.capacity === "on-demand" ? "info" : "pending"}>{CAPACITY_LABELS[item.capacity]}</StatusIndicator>
          ),
        },
        { id: "running", header: "Running", cell: (item) => item.runningInstances },
        { id: "hours", header: "Instance-hours", cell: (item) => item.instanceHours.toFixed(2) },
        { id: "price", header: "On-demand $/h", cell: (item) => usd(item.onDemandHourlyPrice) },
        { id: "cost", header: "Cost so far", cell: (item) => (item.onDemandCost === null || item.onDemandCost === undefined ? item.note : usd(item.onDemandCost)) },
      ]}
      empty={<Box textAlign="center">No instance group runs yet.</Box>}
    />
  );
}
