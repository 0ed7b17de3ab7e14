"""/clusters: the registry, stage 1 (network + EKS), restoring a cluster's Kubernetes access and deletion with
plan-then-confirm."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response

from api.authorization import READ, Permission, RouteRequest, Routes, admin, operator
from api.context import plan_or_run
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ClusterTagPath, ConfirmationToken, DryRun
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.clusters import (
    Accepted,
    ClusterDetail,
    ClusterList,
    ClusterView,
    CreateEksClusterRequest,
    ImportClusterRequest,
    Plan,
)
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.hyperpod import CreateHyperPodRequest
from controlplane.models.operations import OperationView
from controlplane.models.pipeline import CreateClusterRequest
from controlplane.models.status import ClusterStatusView
from controlplane.models.storage import ConfigureStorageRequest

router = Routes()

# How many of its newest operations a cluster's detail shows (GET /operations pages through the rest).
RECENT_OPERATIONS = 10


def _storage(request: RouteRequest) -> Permission:
    """Storage is the operators'; an FSx file system enables a feature, which is the admins'."""
    if request.body.get("fsx") is not None:
        return admin("create an FSx file system (it enables the fsxCsiDriver feature)")
    return operator("configure storage")


@router.get(
    "/clusters",
    allow=READ,
    operation_id="cluster_list_all",
    summary="List the clusters this control plane manages",
    description="Registry entries with their status and finished stages, by cluster tag, in pages of `limit` "
    "(default 50); while the answer has `continue`, pass it back to get the next page. Call before creating a cluster.",
    tags=["clusters"],
)
def list_clusters(limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None) -> ClusterList:
    refuse_unknown_parameters(router)
    page = wiring.clusters().page(limit, continue_)
    return ClusterList(clusters=[ClusterView.of(record) for record in page.items], continue_=page.next_token)


@router.get(
    "/clusters/<clusterTag>",
    allow=READ,
    operation_id="cluster_get",
    summary="Describe one cluster",
    description="The cluster's record, finished stages, the EKS control plane as EKS reports it now, and its recent "
    "operations.",
    tags=["clusters"],
)
def get_cluster(clusterTag: ClusterTagPath) -> ClusterDetail:
    service = wiring.clusters()
    record = service.get(clusterTag)
    recent = wiring.operations().list_for_cluster(clusterTag, RECENT_OPERATIONS).items
    return ClusterDetail(
        **ClusterView.of(record).model_dump(),
        eks=service.live_eks(record),
        operations=[OperationView.of(operation) for operation in recent],
    )


@router.post(
    "/clusters/eks",
    allow=admin("create an EKS cluster"),
    operation_id="cluster_create_eks",
    summary="Stage 1: create the network and the EKS control plane",
    description=(
        "Creates a VPC (public and private subnets in two AZs, internet and NAT gateways, S3 endpoint), the "
        "cluster role and EKS cluster eks-cluster-<clusterTag>. Takes 10-15 minutes on AWS: returns 202 with an "
        "operation; call operation_wait until it is terminal. dryRun=true returns the plan only."
    ),
    tags=["clusters"],
    responses={202: response_doc(Accepted, "Workflow started"), 200: response_doc(Plan, "Plan (dryRun=true)")},
)
def create_eks_cluster(body: CreateEksClusterRequest, dryRun: DryRun = False) -> Response[str]:
    service = wiring.cluster_lifecycle()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope="POST /clusters/eks",
        body=body.model_dump(mode="json"),
        plan=lambda caller: service.plan_create_eks(body),
        run=lambda caller: service.create_eks(body, caller),
    )


@router.post(
    "/clusters/import",
    allow=admin("import a cluster"),
    operation_id="cluster_import",
    summary="Adopt an existing EKS cluster (and its HyperPod cluster) instead of creating one",
    description=(
        "Registers an EKS cluster the control plane did not create under clusterTag. Checked before anything "
        "changes: the cluster exists and is ACTIVE, its authenticationMode allows access entries, it is not "
        "registered yet, hyperPodClusterName (optional) is InService on this EKS cluster, and (pre-flight, listed in "
        "the plan's checks) its API endpoint is public to 0.0.0.0/0: the control plane runs outside any VPC, so a "
        "private-only endpoint is refused with 400 PreflightFailed naming the setting to change. The workflow tags "
        "the cluster, gives the control plane an access entry if it has none, and discovers the VPC's NAT egress "
        "and which stages are already done (OIDC, add-ons and HyperPod dependencies; HyperPod; the s3-claim "
        "claim); continue with the stage routes for the rest. Deleting an imported cluster later keeps the EKS "
        "cluster, its VPC and everything adopted. 202 with an operation; dryRun=true returns the plan."
    ),
    tags=["clusters"],
    responses={202: response_doc(Accepted, "Workflow started"), 200: response_doc(Plan, "Plan (dryRun=true)")},
)
def import_cluster(body: ImportClusterRequest, dryRun: DryRun = False) -> Response[str]:
    service = wiring.cluster_lifecycle()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope="POST /clusters/import",
        body=body.model_dump(mode="json"),
        plan=lambda caller: service.plan_import(body),
        run=lambda caller: service.import_cluster(body, caller),
    )


@router.delete(
    "/clusters/<clusterTag>",
    allow=admin("delete a cluster"),
    operation_id="cluster_delete",
    summary="Delete a cluster and everything the control plane created for it",
    description=(
        "Destructive. Without confirmationToken, returns the plan and a single-use token (valid 10 minutes) and "
        "changes nothing: show the plan to the person and ask them to confirm. Repeat with the token to start the "
        "deletion (202, an operation to wait on)."
    ),
    tags=["clusters"],
    responses={202: response_doc(Accepted, "Deletion started"), 200: response_doc(Plan, "Plan and token")},
)
def delete_cluster(
    clusterTag: ClusterTagPath,
    confirmationToken: ConfirmationToken = None,
    dryRun: DryRun = False,
) -> Response[str]:
    service = wiring.cluster_lifecycle()
    return plan_or_run(
        router,
        dry_run=dryRun or not confirmationToken,
        scope=f"DELETE /clusters/{clusterTag}",
        body={"confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_delete(clusterTag, caller),
        run=lambda caller: service.delete(clusterTag, confirmationToken or "", caller),
    )


@router.post(
    "/clusters/<clusterTag>/dependencies",
    allow=admin("configure cluster dependencies"),
    operation_id="cluster_configure_dependencies",
    summary="Stage 3: install what HyperPod needs inside the EKS cluster",
    description=(
        "After stage 1 (EKS) succeeded: creates the cluster's IAM OIDC provider, the EKS add-ons HyperPod needs "
        "(eks-pod-identity-agent, aws-mountpoint-s3-csi-driver with its own role, cert-manager, metrics-server) at "
        "reviewed versions, and applies the HyperPod dependencies (NVIDIA and EFA device plugins, health-monitoring "
        "agent) with server-side apply. 202 with an operation; dryRun=true returns the plan only. "
        "Refused with 409 ClusterNotReady before stage 1 has finished."
    ),
    tags=["clusters"],
    responses={202: response_doc(Accepted, "Workflow started"), 200: response_doc(Plan, "Plan (dryRun=true)")},
)
def configure_dependencies(clusterTag: ClusterTagPath, dryRun: DryRun = False) -> Response[str]:
    service = wiring.stage_requests()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"POST /clusters/{clusterTag}/dependencies",
        body={},
        plan=lambda caller: service.plan_dependencies(clusterTag),
        run=lambda caller: service.configure_dependencies(clusterTag, caller),
    )


@router.post(
    "/clusters/<clusterTag>/hyperpod",
    allow=admin("create a HyperPod cluster"),
    operation_id="hyperpod_create",
    summary="Stage 4: create the HyperPod cluster with its first instance group",
    description=(
        "After stage 3 (dependencies): creates hp-cluster-<clusterTag> on the EKS cluster with automatic node "
        "recovery and continuous provisioning, and its first instance group (instance type and count, AZ, EBS size, "
        "capacity type on-demand, spot or training-plan — a training plan's AZ takes precedence; deep health checks "
        "on by default for GPU families that support them). Ask the person for the AZ, instance type, count and "
        "capacity type, offering what cluster_get_available_instances and region_get_quotas list. 202 with an "
        "operation (20+ minutes on AWS); dryRun=true returns the plan. Refused before any side effect when the type "
        "is not offered in the AZ, the training plan is unknown, or the cluster is not ready (409 ClusterNotReady)."
    ),
    tags=["clusters"],
    responses={202: response_doc(Accepted, "Workflow started"), 200: response_doc(Plan, "Plan (dryRun=true)")},
)
def create_hyperpod(clusterTag: ClusterTagPath, body: CreateHyperPodRequest, dryRun: DryRun = False) -> Response[str]:
    service = wiring.stage_requests()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"POST /clusters/{clusterTag}/hyperpod",
        body=body.model_dump(mode="json"),
        plan=lambda caller: service.plan_hyperpod(clusterTag, body),
        run=lambda caller: service.create_hyperpod(clusterTag, body, caller),
    )


@router.get(
    "/clusters/<clusterTag>/status",
    allow=READ,
    operation_id="cluster_get_status",
    summary="Stage 6: is the cluster ready for work? Nodes, GPUs and what is missing",
    description=(
        "Reads the cluster's Kubernetes nodes (Ready, schedulable, health label, GPU capacity) and the pipeline "
        "stages. `ready` is true only when every stage is done and every node is Ready and schedulable; otherwise "
        "`missing` says what is left. Read this before declaring a cluster usable or choosing a GPU count."
    ),
    tags=["clusters"],
)
def get_cluster_status(clusterTag: ClusterTagPath) -> ClusterStatusView:
    return wiring.clusters().status(clusterTag)


@router.post(
    "/clusters/<clusterTag>/storage",
    allow=_storage,
    operation_id="s3_storage_create",
    summary="Stage 5: mount an S3 bucket (and optionally FSx for Lustre) into the cluster as PersistentVolumeClaims",
    description=(
        "After stage 3: creates the data bucket instantstart-<clusterTag>-<account>-<region> (or uses bucketName), "
        "grants the Mountpoint for S3 CSI driver's role access to exactly that bucket, and applies a PV and the "
        "claim (default s3-claim) that workload templates mount at /s3. The control plane never deletes data "
        "buckets. With fsx (after stage 4; admin): enables the fsxCsiDriver feature if needed, creates an FSx for "
        "Lustre file system in the HyperPod compute subnet (storageCapacityGiB 1200 or a multiple of 2400; "
        "deploymentType SCRATCH_2 or PERSISTENT_2 with perUnitStorageThroughput 125, 250, 500 or 1000), waits until "
        "it is AVAILABLE and applies a static PV and the claim (default fsx-claim); the file system is deleted with "
        "the cluster. 202 with an operation; dryRun=true returns the plan."
    ),
    tags=["storage"],
    responses={202: response_doc(Accepted, "Workflow started"), 200: response_doc(Plan, "Plan (dryRun=true)")},
)
def configure_storage(
    clusterTag: ClusterTagPath, body: ConfigureStorageRequest, dryRun: DryRun = False
) -> Response[str]:
    service = wiring.stage_requests()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"POST /clusters/{clusterTag}/storage",
        body=body.model_dump(mode="json"),
        plan=lambda caller: service.plan_storage(clusterTag, body),
        run=lambda caller: service.configure_storage(clusterTag, body, caller),
    )


@router.post(
    "/clusters",
    allow=admin("create a cluster"),
    operation_id="cluster_create",
    summary="Create a cluster with every stage in one operation",
    description=(
        "Network and EKS, dependencies, HyperPod with its first instance group, and storage, when every input is "
        "known: the same steps as the stage routes, in one workflow. Every part is validated before anything is "
        "created. A failure in a later stage keeps the earlier ones (they show in stagesDone); resume continues. "
        "202 with an operation; dryRun=true returns the plan."
    ),
    tags=["clusters"],
    responses={202: response_doc(Accepted, "Workflow started"), 200: response_doc(Plan, "Plan (dryRun=true)")},
)
def create_cluster(body: CreateClusterRequest, dryRun: DryRun = False) -> Response[str]:
    service = wiring.cluster_lifecycle()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope="POST /clusters",
        body=body.model_dump(mode="json"),
        plan=lambda caller: service.plan_pipeline(body),
        run=lambda caller: service.create_cluster(body, caller),
    )


@router.post(
    "/clusters/<clusterTag>/access",
    allow=admin("restore a cluster's Kubernetes access"),
    operation_id="cluster_restore_access",
    summary="Restore a cluster's Kubernetes access",
    description=(
        "When reads answer 409 ClusterAccessDenied and the create or import operation SUCCEEDED: reruns Ensure "
        "Access Entry (entries, groups, RBAC). 202 operation; wait, then retry."
    ),
    tags=["clusters"],
    responses={202: response_doc(Accepted, "Workflow started"), 200: response_doc(Plan, "Plan (dryRun=true)")},
)
def restore_access(clusterTag: ClusterTagPath, dryRun: DryRun = False) -> Response[str]:
    service = wiring.cluster_access()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"POST /clusters/{clusterTag}/access",
        body={},
        plan=lambda caller: service.plan_restore(clusterTag),
        run=lambda caller: service.restore(clusterTag, caller),
    )
