"""Stage 5 steps: an S3 bucket mounted through the Mountpoint for S3 CSI driver as a PV/PVC, and optionally
an FSx for Lustre file system mounted through the FSx CSI driver.

The S3 CSI driver's IRSA role (stage 3) is widened to exactly the buckets the cluster mounts; the PVs and
PVCs are applied with server-side apply. Data buckets are never deleted by the control plane; the FSx file
system is (it is tagged as ours and deleted with the cluster). The FSx volume is provisioned statically
(the file system is created here, the PV names it); the FSx CSI driver itself is the `fsxCsiDriver`
advanced feature (add-on with its IRSA role), which the storage workflow enables through that feature's
own ensure step, so the panel reports it and disabling it removes it.
"""

from __future__ import annotations

import hashlib

from controlplane.core import deadlines
from controlplane.core.identity import s3_bucket_access
from controlplane.core.naming import (
    S3_CSI_POLICY_NAME,
    Deployment,
    fsx_tags,
    is_owned,
    managed_bucket_pattern,
    owner,
    ownership_tags,
    s3_csi_role_name,
)
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.core.ports.network import NetworkGateway
from controlplane.core.ports.storage import BucketGateway, FileSystemGateway, LustreFileSystem, LustreSpec
from controlplane.core.storage.namespace import namespace_to_create, secret_reader_rbac
from controlplane.core.storage.objects import fsx_objects, storage_objects
from controlplane.models.errors import (
    DependencyFailedError,
    ForeignResourceError,
    InvalidRequestError,
    ResourceNotReadyError,
)
from controlplane.models.storage import FsxPlan, StoragePlan
from controlplane.models.workflow import DeleteEksClusterInput, PollState, StorageStageInput

FSX_FAILED = {"FAILED", "MISCONFIGURED", "MISCONFIGURED_UNAVAILABLE"}


class StorageService:
    def __init__(
        self,
        iam: IamGateway,
        eks: EksGateway,
        kubernetes: KubernetesGateway,
        buckets: BucketGateway,
        network: NetworkGateway,
        file_systems: FileSystemGateway,
        poll: Poller,
        deployment: Deployment,
    ) -> None:
        self._iam = iam
        self._eks = eks
        self._kubernetes = kubernetes
        self._buckets = buckets
        self._network = network
        self._file_systems = file_systems
        self._poll = poll
        self._deployment = deployment

    def ensure_data_bucket(self, ctx: StorageStageInput) -> dict[str, str]:
        plan = ctx.storage
        tags = self._buckets.bucket_tags(plan.bucketName)
        if plan.bucketSource == "caller":
            if tags is None:
                raise InvalidRequestError(f"Bucket {plan.bucketName} does not exist or is not readable.")
            return {"bucketName": plan.bucketName, "action": "using the caller's bucket"}
        if tags is None:
            self._buckets.create_bucket(plan.bucketName, ownership_tags(self._deployment, ctx.clusterTag))
            return {"bucketName": plan.bucketName, "action": "created"}
        if not is_owned(self._deployment, tags, ctx.clusterTag):
            raise ForeignResourceError(
                f"Bucket {plan.bucketName} exists but was not created by InstantStart. {owner(tags)}"
            )
        return {"bucketName": plan.bucketName, "action": "found"}

    def grant_bucket_access(self, ctx: StorageStageInput) -> dict[str, str]:
        plan = ctx.storage
        role = s3_csi_role_name(self._deployment, ctx.clusterTag)
        current = self._iam.role_policy(role, S3_CSI_POLICY_NAME)
        if current is None:
            raise ResourceNotReadyError(f"Role {role} has no {S3_CSI_POLICY_NAME} policy; stage 3 must finish first.")
        buckets = sorted(_granted_buckets(current) | {managed_bucket_pattern(ctx.clusterTag), plan.bucketName})
        wanted = s3_bucket_access(self._deployment, buckets)
        if wanted != current:
            self._iam.put_role_policy(role, S3_CSI_POLICY_NAME, wanted)
        return {"roleName": role, "buckets": ", ".join(buckets)}

    def apply_storage_claim(self, ctx: StorageStageInput) -> dict[str, str]:
        plan = ctx.storage
        cluster = self._eks.find_cluster(ctx.eksClusterName)
        if cluster is None or cluster.status != "ACTIVE":
            raise ResourceNotReadyError("The EKS cluster is not ACTIVE.")
        found = self._kubernetes.get(cluster, ctx.region, "v1", "Namespace", plan.namespace)
        namespace = namespace_to_create(plan.namespace, found)
        objects = [
            *([namespace] if namespace else []),
            *secret_reader_rbac(plan.namespace),
            *storage_objects(plan, ctx.clusterTag, ctx.region),
        ]
        applied = self._kubernetes.apply(cluster, ctx.region, objects)
        return {"applied": ", ".join(applied)}

    # --- FSx for Lustre ------------------------------------------------------------------------

    def create_fsx_file_system(self, ctx: StorageStageInput) -> dict[str, str]:
        plan = ctx.storage
        fsx = _fsx(plan)
        found = self._live_file_system(ctx, fsx)
        if found is not None:
            return {"fileSystemId": found.file_system_id, "lifecycle": found.lifecycle, "action": "found"}
        subnet, groups = self._fsx_network(ctx)
        created = self._file_systems.create_lustre(
            LustreSpec(
                storage_capacity_gib=fsx.storageCapacityGiB,
                deployment_type=fsx.deploymentType,
                per_unit_storage_throughput=fsx.perUnitStorageThroughput,
                subnet_id=subnet,
                security_group_ids=groups,
                tags=fsx_tags(self._deployment, ctx.clusterTag, fsx.claimName),
                # Same operation and claim → same token: a lost response never creates a second file system.
                client_token=hashlib.sha256(f"{ctx.operationId}/{fsx.claimName}".encode()).hexdigest()[:32],
            )
        )
        return {"fileSystemId": created.file_system_id, "lifecycle": created.lifecycle, "action": "created"}

    def check_fsx_file_system(self, ctx: StorageStageInput) -> PollState:
        fsx = _fsx(ctx.storage)
        found = self._live_file_system(ctx, fsx)
        if found is None:
            raise ResourceNotReadyError("The FSx file system does not exist; 'Create FSx File System' must run first.")
        if found.lifecycle in FSX_FAILED:
            raise DependencyFailedError(
                f"FSx file system {found.file_system_id} is {found.lifecycle}: {found.failure or 'no details'}. "
                "Fix the cause (quota, subnet, security group rules for ports 988 and 1018-1023), delete the file "
                "system, then resume."
            )
        wait = Wait(
            f"FSx file system {found.file_system_id} to be AVAILABLE",
            deadlines.fsx_available(fsx.storageCapacityGiB),
            deadlines.FSX_AVAILABLE_USUALLY,
        )
        return self._poll.poll(ctx, wait, done=found.lifecycle == "AVAILABLE", status=found.lifecycle)

    def apply_fsx_claim(self, ctx: StorageStageInput) -> dict[str, str]:
        plan = ctx.storage
        fsx = _fsx(plan)
        found = self._live_file_system(ctx, fsx)
        cluster = self._eks.find_cluster(ctx.eksClusterName)
        if found is None or found.lifecycle != "AVAILABLE" or cluster is None or cluster.status != "ACTIVE":
            raise ResourceNotReadyError("The FSx file system is not AVAILABLE or the EKS cluster is not ACTIVE.")
        objects = fsx_objects(found, fsx, plan.namespace, ctx.clusterTag)
        applied = self._kubernetes.apply(cluster, ctx.region, objects)
        return {"fileSystemId": found.file_system_id, "applied": ", ".join(applied)}

    def delete_fsx_file_systems(self, ctx: DeleteEksClusterInput) -> dict[str, str]:
        """Delete every file system stage 5 created for the cluster (no final backup)."""
        deleting = []
        for found in self._file_systems.lustre_file_systems(ownership_tags(self._deployment, ctx.clusterTag)):
            if found.lifecycle != "DELETING":
                self._file_systems.delete_file_system(found.file_system_id)
            deleting.append(found.file_system_id)
        return {"deleting": ", ".join(deleting) or "none"}

    def check_fsx_file_systems_deleted(self, ctx: DeleteEksClusterInput) -> PollState:
        left = self._file_systems.lustre_file_systems(ownership_tags(self._deployment, ctx.clusterTag))
        wait = Wait(f"the FSx file systems of {ctx.clusterTag} to be deleted", deadlines.FSX_FILE_SYSTEMS_DELETED)
        return self._poll.poll(ctx, wait, done=not left, status="DELETED" if not left else "DELETING")

    def _live_file_system(self, ctx: StorageStageInput, plan: FsxPlan) -> LustreFileSystem | None:
        found = self._file_systems.lustre_file_systems(fsx_tags(self._deployment, ctx.clusterTag, plan.claimName))
        return next((file_system for file_system in found if file_system.lifecycle != "DELETING"), None)

    def _fsx_network(self, ctx: StorageStageInput) -> tuple[str, tuple[str, ...]]:
        """The first compute subnet (stage 4) and the security group the HyperPod nodes are in."""
        compute = sorted(
            (
                subnet
                for key, subnet in self._network.find_subnets(ctx.clusterTag).items()
                if key.startswith("compute-")
            ),
            key=lambda subnet: subnet.key,
        )
        imported = ctx.importedNetwork
        subnet = compute[0].subnet_id if compute else (imported.subnetIds[0] if imported else None)
        group = imported.securityGroupId if imported else self._network.find_security_group(ctx.clusterTag)
        if subnet is None or group is None:
            raise ResourceNotReadyError("The cluster has no compute subnet or security group yet (stage 4).")
        return subnet, (group,)


def _granted_buckets(policy: dict[str, object]) -> set[str]:
    statements = policy.get("Statement", [])
    resources: set[str] = set()
    for statement in statements if isinstance(statements, list) else []:
        if statement.get("Sid") == "ListBuckets":
            resources |= {str(arn).split(":::", 1)[-1] for arn in statement.get("Resource", [])}
    return resources


def _fsx(plan: StoragePlan) -> FsxPlan:
    """The workflow runs the FSx steps only when the request asked for a file system (an ASL Choice)."""
    if plan.fsx is None:
        raise InvalidRequestError("The storage plan has no fsx part.")
    return plan.fsx
