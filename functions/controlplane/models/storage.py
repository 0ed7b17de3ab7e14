"""Requests for stage 5: S3 storage mounted into pods as a PersistentVolumeClaim."""

from __future__ import annotations

from pydantic import Field

from controlplane.models.common import Contract, View

BUCKET_PATTERN = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"
CLAIM_PATTERN = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"


class ConfigureStorageRequest(Contract):
    """Stage 5: an S3 bucket (created, or the caller's) exposed as a PV/PVC for the workload templates."""

    bucketName: str | None = Field(
        default=None,
        pattern=BUCKET_PATTERN,
        description="An existing bucket to mount. Omit to create instantstart-<clusterTag>-<account>-<region>.",
    )
    claimName: str = Field(
        default="s3-claim",
        pattern=CLAIM_PATTERN,
        description="PersistentVolumeClaim name; workload templates mount it at /s3.",
    )
    namespace: str = Field(default="default", pattern=CLAIM_PATTERN, description="Namespace of the claim.")


class StoragePlan(View):
    bucketName: str
    bucketSource: str
    claimName: str
    namespace: str
