/** The cluster detail page's first tab: the registry entry's facts and its running or last operation, live. */
import Container from "@cloudscape-design/components/container";
import Header from "@cloudscape-design/components/header";
import KeyValuePairs from "@cloudscape-design/components/key-value-pairs";
import SpaceBetween from "@cloudscape-design/components/space-between";
import { ClusterStatus } from "../../components/status";
import type { Operation } from "../../hooks/useOperation";
import { OverviewOperation, time } from "./OverviewOperation";
import type { ClusterTabProps } from "./tabs";
import { regionName } from "../../components/regions";

export interface OverviewProps extends Pick<ClusterTabProps, "cluster"> {
  /** Runs when the followed operation settles, or after a resume or cancel from this tab. */
  onOperationChange: (operation: Operation) => void;
  /**
   * The operation this page started, if any: followed from its start, before the cluster's record (a delete can end
   * before the record is read again, and then there is no record to name it).
   */
  startedOperationId?: string;
}

export function Overview({ cluster, onOperationChange, startedOperationId }: OverviewProps) {
  const operationId = startedOperationId ?? cluster.activeOperationId ?? cluster.lastOperationId;
  return (
    <SpaceBetween size="l">
      <Container header={<Header variant="h2">Cluster</Header>}>
        <KeyValuePairs
          columns={3}
          items={[
            { label: "Status", value: <ClusterStatus cluster={cluster} /> },
            { label: "Region", value: `${regionName(cluster.region)} (${cluster.region})` },
            { label: "Stages done", value: cluster.stagesDone.join(", ") || "none" },
            { label: "EKS cluster", value: cluster.eksClusterName },
            { label: "Kubernetes version", value: cluster.kubernetesVersion },
            { label: "VPC CIDR", value: cluster.vpcCidr ?? "-" },
            { label: "HyperPod cluster", value: cluster.hyperPodClusterName ?? "-" },
            { label: "Storage bucket", value: cluster.storageBucket ?? "-" },
            { label: "Storage claims", value: [cluster.storageClaim, cluster.fsxClaim].filter(Boolean).join(", ") || "-" },
            {
              label: "Imported",
              value: cluster.imported ? `yes (adopted: ${cluster.adopted?.join(", ") || "nothing"})` : "no",
            },
            { label: "Created", value: time(cluster.createdAt) },
            { label: "Updated", value: time(cluster.updatedAt) },
          ]}
        />
      </Container>
      {operationId && (
        <OverviewOperation
          key={operationId}
          operationId={operationId}
          onChange={onOperationChange}
          startedHere={operationId === startedOperationId}
        />
      )}
    </SpaceBetween>
  );
}
