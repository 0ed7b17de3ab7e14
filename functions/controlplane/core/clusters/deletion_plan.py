"""What deleting a cluster destroys and keeps: everything the control plane created for a cluster it created (item
by item, as the delete workflow removes it); only what the pipeline added to an imported one. Pure functions of the
registry record, so a plan's fingerprint changes when a finished stage changes what delete removes."""

from __future__ import annotations

from controlplane.core.naming import (
    Deployment,
    eks_cluster_role_name,
    fsx_csi_role_name,
    hyperpod_cluster_of,
    hyperpod_execution_role_name,
    inference_operator_role_name,
    inference_tls_bucket_name,
    karpenter_role_name,
    lifecycle_bucket_name,
    observability_role_name,
    observability_workspace_alias,
    resource_name,
    s3_csi_role_name,
    tiered_storage_role_name,
    training_operator_role_name,
)
from controlplane.models.clusters import ClusterRecord, PlannedAction, StageName


def delete_actions(deployment: Deployment, record: ClusterRecord) -> list[PlannedAction]:
    return (
        _imported_delete_actions(deployment, record) if record.imported else _created_delete_actions(deployment, record)
    )


def _created_delete_actions(deployment: Deployment, record: ClusterRecord) -> list[PlannedAction]:
    """Every resource the delete workflow removes, in its order, for the stages the cluster has finished."""
    tag = record.clusterTag
    done = set(record.stagesDone)

    def delete(resource: str, name: str, detail: str | None = None) -> PlannedAction:
        return PlannedAction(action="delete", resource=resource, name=name, detail=detail)

    actions = []
    if StageName.HYPERPOD.value in done:
        actions += [
            delete("AWS::SageMaker::Cluster", hyperpod_cluster_of(tag, record.hyperPodClusterName)),
            delete(
                "AWS::IAM::Role", hyperpod_execution_role_name(deployment, tag), "the HyperPod nodes' execution role"
            ),
            delete("AWS::IAM::Role", training_operator_role_name(deployment, tag), "the training operator's role"),
            delete(
                "AWS::S3::Bucket",
                lifecycle_bucket_name(tag, record.accountId or "<account>", record.region),
                "lifecycle scripts",
            ),
        ]
    if record.fsxClaim is not None:
        actions.append(delete("AWS::FSx::FileSystem", record.fsxClaim, "FSx for Lustre, no final backup"))
    actions += [
        delete(
            "AWS::EKS::Cluster",
            record.eksClusterName,
            "with its add-ons, access entries, pod identity associations and Kubernetes objects",
        ),
        delete("AWS::IAM::Role", eks_cluster_role_name(deployment, tag)),
    ]
    if StageName.DEPENDENCIES.value in done:
        actions += [
            delete("AWS::IAM::Role", s3_csi_role_name(deployment, tag), "the S3 CSI driver's role"),
            delete("AWS::IAM::OIDCProvider", f"OIDC provider of {record.eksClusterName}"),
            delete(
                "AWS::IAM::Role",
                ", ".join(
                    (
                        fsx_csi_role_name(deployment, tag),
                        observability_role_name(deployment, tag),
                        inference_operator_role_name(deployment, tag),
                        karpenter_role_name(deployment, tag),
                        tiered_storage_role_name(deployment, tag),
                    )
                ),
                "those of the advanced features that were enabled, with their policies and the inference TLS "
                f"bucket {inference_tls_bucket_name(tag, record.accountId or '<account>', record.region)}",
            ),
            delete(
                "AWS::APS::Workspace",
                observability_workspace_alias(deployment, tag),
                "the observability feature's Prometheus workspace and its metrics, if that feature was enabled",
            ),
        ]
    actions.append(
        delete(
            "AWS::EC2::VPC",
            resource_name(tag, "vpc"),
            "with its subnets (compute subnets too), internet and NAT gateways, Elastic IP, route tables, "
            "endpoint and security group",
        )
    )
    if record.storageBucket is not None:
        actions.append(
            PlannedAction(action="keep", resource="AWS::S3::Bucket", name=record.storageBucket, detail="data bucket")
        )
    return actions


def _imported_delete_actions(deployment: Deployment, record: ClusterRecord) -> list[PlannedAction]:
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
            detail="roles and OIDC provider the pipeline created, and the observability feature's Prometheus workspace",
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
