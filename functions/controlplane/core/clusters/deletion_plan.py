"""What deleting a cluster destroys and keeps: everything the control plane created for a cluster it created;
only what the pipeline added to an imported one. Pure functions of the registry record."""

from __future__ import annotations

from controlplane.core.naming import eks_cluster_role_name, hyperpod_cluster_of, resource_name
from controlplane.models.clusters import ClusterRecord, PlannedAction, StageName


def delete_actions(record: ClusterRecord) -> list[PlannedAction]:
    return _imported_delete_actions(record) if record.imported else _created_delete_actions(record)


def _created_delete_actions(record: ClusterRecord) -> list[PlannedAction]:
    tag = record.clusterTag
    hyperpod = [
        PlannedAction(
            action="delete",
            resource="AWS::SageMaker::Cluster",
            name=hyperpod_cluster_of(tag, record.hyperPodClusterName),
        )
        for done in record.stagesDone
        if done == StageName.HYPERPOD.value
    ]
    return [
        *hyperpod,
        PlannedAction(action="delete", resource="AWS::EKS::Cluster", name=record.eksClusterName),
        PlannedAction(action="delete", resource="AWS::IAM::Role", name=eks_cluster_role_name(tag)),
        PlannedAction(
            action="delete",
            resource="AWS::EC2::VPC",
            name=resource_name(tag, "vpc"),
            detail="with its subnets, gateways, route tables, endpoint and security group",
        ),
    ]


def _imported_delete_actions(record: ClusterRecord) -> list[PlannedAction]:
    """Keep what was adopted; remove only what the pipeline added to it."""
    tag = record.clusterTag
    adopted = set(record.adopted)
    hyperpod = hyperpod_cluster_of(tag, record.hyperPodClusterName)
    vpc = record.network.vpcId if record.network else "the cluster's VPC"
    actions = [
        PlannedAction(action="keep", resource="AWS::EKS::Cluster", name=record.eksClusterName, detail="imported"),
        PlannedAction(action="keep", resource="AWS::EC2::VPC", name=vpc, detail="imported, with its own subnets"),
    ]
    if StageName.HYPERPOD.value in adopted:
        actions.append(PlannedAction(action="keep", resource="AWS::SageMaker::Cluster", name=hyperpod))
    elif StageName.HYPERPOD.value in record.stagesDone:
        actions.append(PlannedAction(action="delete", resource="AWS::SageMaker::Cluster", name=hyperpod))
    actions += [
        PlannedAction(
            action="delete",
            resource="AWS::EC2::Subnet",
            name=resource_name(tag, "compute-*"),
            detail="compute subnets and their route table, created by stage 4",
        ),
        PlannedAction(
            action="delete",
            resource="AWS::IAM::Role",
            name=resource_name(tag, "*"),
            detail="roles and OIDC provider the pipeline created",
        ),
        PlannedAction(
            action="delete",
            resource="EKS add-ons, pod identity and Kubernetes objects",
            name="added by stages 3-5",
            detail="only those the pipeline installed: "
            + ("adopted stages are kept: " + ", ".join(sorted(adopted)) if adopted else "nothing was adopted"),
        ),
        PlannedAction(
            action="delete",
            resource="AWS::EKS::AccessEntry",
            name="control-plane role",
            detail="if import created it",
        ),
    ]
    return actions
