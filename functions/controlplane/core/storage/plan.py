"""Stage 5 rules and planning: whether a cluster may take storage, the plan a request resolves to, what the
stage creates, and what the registry records of it. Pure functions, no I/O."""

from __future__ import annotations

from controlplane.core.naming import Deployment, data_bucket_name, s3_csi_role_name
from controlplane.core.stages import stage_names
from controlplane.core.storage.namespace import SECRET_READER_ROLE
from controlplane.models.clusters import ClusterRecord, PlannedAction, StageName
from controlplane.models.errors import ClusterNotReadyError, ForeignResourceError
from controlplane.models.features import Feature, FeatureChange, FeatureChanges
from controlplane.models.operations import OperationKind
from controlplane.models.storage import ConfigureStorageRequest, FsxPlan, StoragePlan

PERSISTENT_2_DEFAULT_THROUGHPUT = 125
FSX_STAGE = "fsx"


def check_storage_request(record: ClusterRecord, fsx: bool) -> None:
    """Refuse storage on a cluster whose S3 CSI driver was adopted, and FSx (`fsx`: the request asks for a file
    system) before the HyperPod stage (the file system goes into the nodes' compute subnet)."""
    tag = record.clusterTag
    if StageName.DEPENDENCIES.value in record.adopted:
        raise ForeignResourceError(
            f"Cluster '{tag}' was imported with its own Mountpoint for S3 CSI driver, whose IAM role is "
            "not the control plane's to change. Grant that role access to your bucket and create the "
            "PersistentVolumeClaim yourself, or let InstantStart manage the cluster's dependencies in a cluster "
            "it creates.",
            {"adopted": record.adopted},
        )
    if fsx and StageName.HYPERPOD.value not in record.stagesDone:
        raise ClusterNotReadyError(
            f"Cluster '{tag}' has no HyperPod cluster yet; the FSx file system goes into the compute "
            "subnet of its nodes. Finish stage 'hyperpod' first, or omit fsx.",
            {"needs": StageName.HYPERPOD.value, "stagesDone": record.stagesDone},
        )


def storage_plan(cluster_tag: str, region: str, account: str, request: ConfigureStorageRequest) -> StoragePlan:
    """The caller's bucket or the one stage 5 creates, the claims, and the FSx file system with its defaults."""
    fsx = request.fsx
    return StoragePlan(
        bucketName=request.bucketName or data_bucket_name(cluster_tag, account, region),
        bucketSource="caller" if request.bucketName else "created",
        claimName=request.claimName,
        namespace=request.namespace,
        fsx=None
        if fsx is None
        else FsxPlan(
            storageCapacityGiB=fsx.storageCapacityGiB,
            deploymentType=fsx.deploymentType,
            perUnitStorageThroughput=fsx.perUnitStorageThroughput
            or (PERSISTENT_2_DEFAULT_THROUGHPUT if fsx.deploymentType == "PERSISTENT_2" else None),
            claimName=fsx.claimName,
        ),
    )


def storage_features(plan: StoragePlan) -> FeatureChanges:
    """FSx storage enables the fsxCsiDriver feature (the add-on and its IRSA role) through the feature's own step;
    plain S3 storage changes no feature."""
    if plan.fsx is None:
        return FeatureChanges()
    return FeatureChanges({Feature.FSX_CSI_DRIVER: FeatureChange(change="enable")})


def storage_stages(plan: StoragePlan) -> list[str]:
    """The stages a storage operation runs: the fsx stage only when the plan asks for a file system (its workflow
    skips the FSx steps otherwise, so listing the stage would report work that never happened)."""
    return [stage for stage in stage_names(OperationKind.CONFIGURE_STORAGE) if stage != FSX_STAGE or plan.fsx]


def storage_facts(plan: StoragePlan) -> dict[str, object]:
    """What the registry records of a finished storage stage."""
    return {
        "storageBucket": plan.bucketName,
        "storageClaim": f"{plan.namespace}/{plan.claimName}",
        "fsxClaim": f"{plan.namespace}/{plan.fsx.claimName}" if plan.fsx else None,
    }


def storage_actions(deployment: Deployment, cluster_tag: str, plan: StoragePlan) -> list[PlannedAction]:
    return [
        PlannedAction(
            action="keep" if plan.bucketSource == "caller" else "create",
            resource="AWS::S3::Bucket",
            name=plan.bucketName,
            detail="never deleted by the control plane",
        ),
        PlannedAction(
            action="create",
            resource="AWS::IAM::Policy",
            name=f"{s3_csi_role_name(deployment, cluster_tag)} access",
            detail=f"objects in {plan.bucketName}",
        ),
        PlannedAction(
            action="create",
            resource="Kubernetes Role",
            name=f"{plan.namespace}/{SECRET_READER_ROLE}",
            detail="lets the API read Secrets here, to check that a workload's token Secret is the control plane's",
        ),
        PlannedAction(
            action="create",
            resource="Kubernetes PersistentVolumeClaim",
            name=f"{plan.namespace}/{plan.claimName}",
            detail="mounted at /s3 by workload templates",
        ),
        *_fsx_actions(cluster_tag, plan),
    ]


def _fsx_actions(cluster_tag: str, plan: StoragePlan) -> list[PlannedAction]:
    fsx = plan.fsx
    if fsx is None:
        return []
    throughput = f", {fsx.perUnitStorageThroughput} MB/s/TiB" if fsx.perUnitStorageThroughput else ""
    return [
        PlannedAction(
            action="create",
            resource="AWS::EKS::Addon",
            name="aws-fsx-csi-driver",
            detail=f"fsxCsiDriver feature if not enabled: add-on and IRSA role instantstart-{cluster_tag}-fsx-csi",
        ),
        PlannedAction(
            action="create",
            resource="AWS::FSx::FileSystem",
            name=f"Lustre for {plan.namespace}/{fsx.claimName}",
            detail=f"{fsx.storageCapacityGiB} GiB {fsx.deploymentType}{throughput} in the compute subnet; "
            "deleted with the cluster",
        ),
        PlannedAction(
            action="create",
            resource="Kubernetes PersistentVolumeClaim",
            name=f"{plan.namespace}/{fsx.claimName}",
            detail="static PV for fsx.csi.aws.com",
        ),
    ]
