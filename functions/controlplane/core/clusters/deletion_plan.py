"""What deleting a cluster destroys and what it leaves: everything the control plane created for a cluster it created
(item by item, as the delete workflow removes it); only what the pipeline added to an imported one; the work running
on it (jobs, model servers, managed endpoints), which goes with the EKS cluster; and what the delete cannot remove
(the data bucket, and what Kubernetes controllers made in AWS for objects deleted with the cluster). Pure functions of
the registry record and the live facts the planner (`deletion`) read, so that a plan's fingerprint changes when
anything it lists changes, the cluster's incarnation and status included."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controlplane.core.naming import (
    Deployment,
    eks_cluster_role_name,
    fsx_csi_role_name,
    hyperpod_cluster_of,
    hyperpod_execution_role_name,
    inference_operator_role_name,
    inference_tls_bucket_name,
    job_role_name,
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
from controlplane.models.endpoints import EndpointDetail
from controlplane.models.serving import DeploymentSummary, ServiceType
from controlplane.models.training import TERMINAL_PHASES, JobSummary

LOAD_BALANCER = "AWS::ElasticLoadBalancingV2::LoadBalancer"
SAGEMAKER_ENDPOINT = "AWS::SageMaker::Endpoint"


@dataclass(frozen=True)
class Workloads:
    """The work on the cluster, as its Kubernetes API lists it; `unreadable` says why it could not be read."""

    namespace: str = ""
    jobs: Sequence[JobSummary] = ()
    servers: Sequence[DeploymentSummary] = ()
    endpoints: Sequence[EndpointDetail] = ()
    unreadable: str | None = None


@dataclass(frozen=True)
class LiveFacts:
    """What a delete plan reads besides the record: the cluster's IAM roles that exist (by name), and its work."""

    roles: frozenset[str] = frozenset()
    workloads: Workloads = Workloads()


def role_names(deployment: Deployment, cluster_tag: str) -> dict[str, str]:
    """Every role the control plane may have made for the cluster, with what it is for, in the order delete removes
    them; a plan lists those that exist."""
    return {
        hyperpod_execution_role_name(deployment, cluster_tag): "the HyperPod nodes' execution role",
        training_operator_role_name(deployment, cluster_tag): "the training operator's role",
        eks_cluster_role_name(deployment, cluster_tag): "the EKS cluster's role",
        s3_csi_role_name(deployment, cluster_tag): "the S3 CSI driver's role",
        fsx_csi_role_name(deployment, cluster_tag): "the fsxCsiDriver feature's role, with its policy",
        observability_role_name(deployment, cluster_tag): "the observability feature's role, with its policy",
        inference_operator_role_name(deployment, cluster_tag): "the inferenceOperator feature's role, with its policy",
        karpenter_role_name(deployment, cluster_tag): "the karpenter feature's role, with its policy",
        tiered_storage_role_name(deployment, cluster_tag): "the tieredStorage feature's role, with its policy",
        job_role_name(deployment, cluster_tag): "the training jobs' role (trainingOperator feature)",
    }


def delete_actions(deployment: Deployment, record: ClusterRecord, live: LiveFacts) -> list[PlannedAction]:
    actions = (
        _imported_delete_actions(deployment, record, live)
        if record.imported
        else _created_delete_actions(deployment, record, live)
    )
    return [*actions, _registry_entry(record)]


def _delete(resource: str, name: str, detail: str | None = None) -> PlannedAction:
    return PlannedAction(action="delete", resource=resource, name=name, detail=detail)


def _keep(resource: str, name: str, detail: str) -> PlannedAction:
    return PlannedAction(action="keep", resource=resource, name=name, detail=detail)


def _roles(deployment: Deployment, record: ClusterRecord, live: LiveFacts) -> list[PlannedAction]:
    return [
        _delete("AWS::IAM::Role", name, purpose)
        for name, purpose in role_names(deployment, record.clusterTag).items()
        if name in live.roles
    ]


def _created_delete_actions(deployment: Deployment, record: ClusterRecord, live: LiveFacts) -> list[PlannedAction]:
    """Every resource the delete workflow removes, in its order, for the stages the cluster has finished."""
    tag = record.clusterTag
    done = set(record.stagesDone)
    account = record.accountId or "<account>"
    actions = []
    if StageName.HYPERPOD.value in done:
        actions += [
            _delete("AWS::SageMaker::Cluster", hyperpod_cluster_of(tag, record.hyperPodClusterName)),
            _delete("AWS::S3::Bucket", lifecycle_bucket_name(tag, account, record.region), "lifecycle scripts"),
        ]
    if record.fsxClaim is not None:
        actions.append(_delete("AWS::FSx::FileSystem", record.fsxClaim, "FSx for Lustre, no final backup"))
    actions += [
        _delete(
            "AWS::EKS::Cluster",
            record.eksClusterName,
            "with its add-ons, access entries, pod identity associations and Kubernetes objects",
        ),
        *_work(tag, live.workloads),
        *_roles(deployment, record, live),
    ]
    if StageName.DEPENDENCIES.value in done:
        actions += [
            _delete("AWS::IAM::OIDCProvider", f"OIDC provider of {record.eksClusterName}"),
            _delete(
                "AWS::S3::Bucket",
                inference_tls_bucket_name(tag, account, record.region),
                "the inferenceOperator feature's TLS bucket, if that feature was enabled",
            ),
            _delete(
                "AWS::APS::Workspace",
                observability_workspace_alias(deployment, tag),
                "the observability feature's Prometheus workspace and its metrics, if that feature was enabled",
            ),
        ]
    actions.append(
        _delete(
            "AWS::EC2::VPC",
            resource_name(tag, "vpc"),
            "with its subnets (compute subnets too), internet and NAT gateways, Elastic IP, route tables, "
            "endpoint and security group",
        )
    )
    return actions + _kept_data(record)


def _imported_delete_actions(deployment: Deployment, record: ClusterRecord, live: LiveFacts) -> list[PlannedAction]:
    """Keep what was adopted; remove only what the pipeline added to it (the work on the cluster stays with it)."""
    tag = record.clusterTag
    adopted = set(record.adopted)
    hyperpod = hyperpod_cluster_of(tag, record.hyperPodClusterName)
    vpc = record.network.vpcId if record.network else "the cluster's VPC"
    actions = [
        _keep(
            "AWS::EKS::Cluster",
            record.eksClusterName,
            "imported: kept with its jobs, model servers and endpoints (none is deleted)",
        ),
        _keep("AWS::EC2::VPC", vpc, "imported, with its own subnets"),
    ]
    if StageName.HYPERPOD.value in adopted:
        actions.append(_keep("AWS::SageMaker::Cluster", hyperpod, "imported"))
    elif StageName.HYPERPOD.value in record.stagesDone:
        actions.append(_delete("AWS::SageMaker::Cluster", hyperpod))
    actions += [
        _delete(
            "AWS::EC2::Subnet",
            resource_name(tag, "compute-*"),
            "compute subnets and their route table, created by stage 4",
        ),
        *_roles(deployment, record, live),
        _delete(
            "AWS::IAM::OIDCProvider",
            f"OIDC provider of {record.eksClusterName}",
            "if the pipeline created it, with the observability feature's Prometheus workspace",
        ),
        _delete(
            "EKS add-ons, pod identity and Kubernetes objects",
            "added by stages 3-5",
            "only those the pipeline installed: "
            + ("adopted stages are kept: " + ", ".join(sorted(adopted)) if adopted else "nothing was adopted"),
        ),
        _delete("AWS::EKS::AccessEntry", "control-plane role", "if import created it"),
    ]
    return actions + _kept_data(record)


def _work(cluster_tag: str, workloads: Workloads) -> list[PlannedAction]:
    """The jobs still running, the model servers and the managed endpoints, deleted with the EKS cluster; what their
    controllers made in AWS is not, and is listed as left behind."""
    if workloads.unreadable is not None:
        return [
            _delete(
                "Kubernetes workloads",
                "unknown",
                f"the cluster's jobs, model servers and endpoints could not be listed ({workloads.unreadable}); "
                "whatever runs there stops with the cluster",
            )
        ]

    def within(namespace: str | None) -> str:
        """`namespace/` of a workload: its own (a team's), else the claim's."""
        namespace = namespace or workloads.namespace
        return f"{namespace}/" if namespace else ""

    actions = [
        _delete(
            job.kind.value,
            f"{within(job.namespace)}{job.name}",
            "training job still running: its pods stop with the cluster",
        )
        for job in workloads.jobs
        if job.phase not in TERMINAL_PHASES
    ]
    for server in workloads.servers:
        actions.append(
            _delete(
                "Deployment",
                f"{within(server.namespace)}{server.name}",
                f"model server ({server.engine}, {server.replicas} replica(s), {server.serviceType.value}): its pods "
                "stop with the cluster",
            )
        )
        if server.serviceType is ServiceType.EXTERNAL:
            actions.append(
                _keep(
                    LOAD_BALANCER,
                    f"load balancer of Service {within(server.namespace)}{server.name}",
                    "left in the account (and in the VPC, whose deletion it then blocks): deleting the cluster does "
                    "not run the load balancer controller; delete the model server first "
                    f"(DELETE /clusters/{cluster_tag}/deployments/{server.name})",
                )
            )
    for endpoint in workloads.endpoints:
        actions.append(
            _delete(
                endpoint.kind.value,
                f"{within(None)}{endpoint.name}",
                "managed endpoint: its workers stop with the cluster",
            )
        )
        if endpoint.sageMakerEndpointName:
            actions.append(
                _keep(
                    SAGEMAKER_ENDPOINT,
                    endpoint.sageMakerEndpointName,
                    "left in the account with its endpoint configuration: the inference operator removes them only "
                    f"when the endpoint is deleted first (DELETE /clusters/{cluster_tag}/endpoints/{endpoint.name})",
                )
            )
    return actions


def _kept_data(record: ClusterRecord) -> list[PlannedAction]:
    if record.storageBucket is None:
        return []
    return [_keep("AWS::S3::Bucket", record.storageBucket, "data bucket: the control plane never deletes data")]


def _registry_entry(record: ClusterRecord) -> PlannedAction:
    """The cluster as this control plane knows it: a token confirms deleting exactly this incarnation, in this state."""
    return _delete(
        "InstantStart cluster",
        record.clusterTag,
        f"incarnation {record.incarnation}, {record.status.value}, stages done: "
        f"{', '.join(record.stagesDone) or 'none'}",
    )
