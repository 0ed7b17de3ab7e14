"""Stage 5 steps: an S3 bucket mounted through the Mountpoint for S3 CSI driver as a PV/PVC.

The CSI driver's IRSA role (stage 3) is widened to exactly the buckets the cluster mounts; the PV and
PVC are applied with server-side apply. Data buckets are never deleted by the control plane.
"""

from __future__ import annotations

from controlplane.core.dependencies import S3_CSI_POLICY, managed_bucket_pattern, s3_csi_role_name
from controlplane.core.identity import s3_bucket_access
from controlplane.core.naming import is_owned, ownership_tags
from controlplane.core.ports import BucketGateway, EksGateway, IamGateway, KubernetesGateway
from controlplane.models.errors import ForeignResourceError, InvalidRequestError, ResourceNotReadyError
from controlplane.models.storage import StoragePlan
from controlplane.models.workflow import WorkflowInput

S3_CSI_DRIVER = "s3.csi.aws.com"
PV_CAPACITY = "1200Gi"


def data_bucket_name(cluster_tag: str, account: str, region: str) -> str:
    return f"instantstart-{cluster_tag}-{account}-{region}"


def storage_objects(plan: StoragePlan, cluster_tag: str, region: str) -> list[dict[str, object]]:
    """The PV bound to the bucket and the claim pods mount (static provisioning, ReadWriteMany)."""
    volume = f"pv-{cluster_tag}-{plan.claimName}"
    labels = {"app.kubernetes.io/managed-by": "instantstart"}
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": volume, "labels": labels},
            "spec": {
                "capacity": {"storage": PV_CAPACITY},
                "accessModes": ["ReadWriteMany"],
                "storageClassName": "",
                "claimRef": {"namespace": plan.namespace, "name": plan.claimName},
                "mountOptions": ["allow-delete", f"region {region}"],
                "csi": {
                    "driver": S3_CSI_DRIVER,
                    "volumeHandle": f"s3-csi-driver-volume-{plan.claimName}",
                    "volumeAttributes": {"bucketName": plan.bucketName},
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": plan.claimName, "namespace": plan.namespace, "labels": labels},
            "spec": {
                "accessModes": ["ReadWriteMany"],
                "storageClassName": "",
                "resources": {"requests": {"storage": PV_CAPACITY}},
                "volumeName": volume,
            },
        },
    ]


class StorageService:
    def __init__(self, iam: IamGateway, eks: EksGateway, kubernetes: KubernetesGateway, buckets: BucketGateway) -> None:
        self._iam = iam
        self._eks = eks
        self._kubernetes = kubernetes
        self._buckets = buckets

    def ensure_data_bucket(self, ctx: WorkflowInput) -> dict[str, str]:
        plan = _plan(ctx)
        tags = self._buckets.bucket_tags(plan.bucketName)
        if plan.bucketSource == "caller":
            if tags is None:
                raise InvalidRequestError(f"Bucket {plan.bucketName} does not exist or is not readable.")
            return {"bucketName": plan.bucketName, "action": "using the caller's bucket"}
        if tags is None:
            self._buckets.create_bucket(plan.bucketName, ownership_tags(ctx.clusterTag))
            return {"bucketName": plan.bucketName, "action": "created"}
        if not is_owned(tags, ctx.clusterTag):
            raise ForeignResourceError(f"Bucket {plan.bucketName} exists but was not created by InstantStart.")
        return {"bucketName": plan.bucketName, "action": "found"}

    def grant_bucket_access(self, ctx: WorkflowInput) -> dict[str, str]:
        plan = _plan(ctx)
        role = s3_csi_role_name(ctx.clusterTag)
        current = self._iam.role_policy(role, S3_CSI_POLICY)
        if current is None:
            raise ResourceNotReadyError(f"Role {role} has no {S3_CSI_POLICY} policy; stage 3 must finish first.")
        buckets = sorted(_granted_buckets(current) | {managed_bucket_pattern(ctx.clusterTag), plan.bucketName})
        wanted = s3_bucket_access(buckets)
        if wanted != current:
            self._iam.put_role_policy(role, S3_CSI_POLICY, wanted)
        return {"roleName": role, "buckets": ", ".join(buckets)}

    def apply_storage_claim(self, ctx: WorkflowInput) -> dict[str, str]:
        plan = _plan(ctx)
        cluster = self._eks.find_cluster(ctx.eksClusterName)
        if cluster is None or cluster.status != "ACTIVE":
            raise ResourceNotReadyError("The EKS cluster is not ACTIVE.")
        applied = self._kubernetes.apply(cluster, ctx.region, storage_objects(plan, ctx.clusterTag, ctx.region))
        return {"applied": ", ".join(applied)}


def _granted_buckets(policy: dict[str, object]) -> set[str]:
    statements = policy.get("Statement", [])
    resources: set[str] = set()
    for statement in statements if isinstance(statements, list) else []:
        if statement.get("Sid") == "ListBuckets":
            resources |= {str(arn).removeprefix("arn:aws:s3:::") for arn in statement.get("Resource", [])}
    return resources


def _plan(ctx: WorkflowInput) -> StoragePlan:
    if ctx.storage is None:
        raise InvalidRequestError("The workflow input has no storage plan.")
    return ctx.storage
