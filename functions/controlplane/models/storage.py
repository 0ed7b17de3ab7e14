"""Requests for stage 5: S3 storage mounted into pods as a PersistentVolumeClaim."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from controlplane.models.common import Contract, View

BUCKET_PATTERN = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"
CLAIM_PATTERN = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"
# Kubernetes' own namespaces (kube-system, kube-public, kube-node-lease; the prefix is reserved): never a workload's.
SYSTEM_NAMESPACE_PREFIX = "kube-"


FsxDeploymentType = Literal["PERSISTENT_2", "SCRATCH_2"]
# FSx for Lustre (SSD): 1200 GiB, or increments of 2400 GiB, for both deployment types.
FSX_SMALLEST_GIB = 1200
FSX_INCREMENT_GIB = 2400
# MB/s per TiB that PERSISTENT_2 may provision; SCRATCH_2 has a fixed baseline and takes none.
FSX_THROUGHPUT = {"PERSISTENT_2": (125, 250, 500, 1000), "SCRATCH_2": ()}


class FsxRequest(Contract):
    """An FSx for Lustre file system in the cluster's compute subnet, mounted as a static PV/PVC."""

    storageCapacityGiB: int = Field(
        default=FSX_SMALLEST_GIB, ge=FSX_SMALLEST_GIB, description="1200, or a multiple of 2400 GiB."
    )
    deploymentType: FsxDeploymentType = Field(
        default="SCRATCH_2", description="SCRATCH_2 is temporary, PERSISTENT_2 durable."
    )
    perUnitStorageThroughput: int | None = Field(
        default=None,
        description="MB/s per TiB, PERSISTENT_2 only: 125 (default), 250, 500 or 1000.",
    )
    claimName: str = Field(default="fsx-claim", pattern=CLAIM_PATTERN)

    @model_validator(mode="after")
    def _valid_for_deployment_type(self) -> FsxRequest:
        capacity = self.storageCapacityGiB
        if capacity != FSX_SMALLEST_GIB and capacity % FSX_INCREMENT_GIB:
            raise ValueError(
                f"storageCapacityGiB {capacity} is not valid for {self.deploymentType}: use 1200 or a multiple of "
                f"2400 (2400, 4800, 7200, ...)"
            )
        allowed = FSX_THROUGHPUT[self.deploymentType]
        throughput = self.perUnitStorageThroughput
        if throughput is not None and throughput not in allowed:
            raise ValueError(
                f"perUnitStorageThroughput {throughput} is not valid for {self.deploymentType}: "
                + (
                    f"use one of {', '.join(map(str, allowed))}"
                    if allowed
                    else "omit it (SCRATCH_2 has a fixed baseline)"
                )
            )
        return self


class ConfigureStorageRequest(Contract):
    """Stage 5: an S3 bucket (created, or the caller's) exposed as a PV/PVC for the workload templates."""

    bucketName: str | None = Field(
        default=None,
        pattern=BUCKET_PATTERN,
        description="An existing bucket; omit to create one.",
    )
    claimName: str = Field(
        default="s3-claim",
        pattern=CLAIM_PATTERN,
        description="Workloads mount it at /s3.",
    )
    namespace: str = Field(
        default="default",
        pattern=CLAIM_PATTERN,
        description="Of the claims and the workloads that mount them: `default`, a new one, or one labelled "
        "app.kubernetes.io/managed-by=instantstart; never kube-*.",
    )
    fsx: FsxRequest | None = Field(
        default=None,
        description="Also an FSx for Lustre file system and its claim (needs stage 4's subnet).",
    )

    @field_validator("namespace")
    @classmethod
    def _not_a_system_namespace(cls, namespace: str) -> str:
        if namespace.startswith(SYSTEM_NAMESPACE_PREFIX):
            raise ValueError(
                f"namespace '{namespace}' is one of Kubernetes' own (kube-*), which never holds workloads: name "
                "another namespace (stage 5 creates it) or omit it for 'default'"
            )
        return namespace


class FsxPlan(View):
    storageCapacityGiB: int
    deploymentType: FsxDeploymentType
    perUnitStorageThroughput: int | None = None
    claimName: str


class StoragePlan(View):
    bucketName: str
    bucketSource: str
    claimName: str
    namespace: str
    fsx: FsxPlan | None = None
