"""Stage 5's steps: the data bucket (the control plane's, or one of this account the caller names), the S3 CSI
driver role's access to it and the claim applied through the Kubernetes API; with fsx, an FSx for Lustre file system
and its claim; and the file systems' deletion."""

from __future__ import annotations

from controlplane import wiring
from controlplane.access.conditions import MANAGED_REQUEST, MANAGED_RESOURCE
from controlplane.access.ec2 import describe
from controlplane.access.eks import DESCRIBE_EKS_CLUSTER
from controlplane.access.grant import ASSUME_KUBERNETES_ROLE, NO_RESOURCE_LEVEL_REASON, Grant
from controlplane.access.iam import PUT_S3_CSI_POLICY, READ_S3_CSI_ROLE
from controlplane.access.s3 import buckets
from controlplane.models.workflow import DeleteEksClusterInput, StorageStageInput
from steps.groups import KUBERNETES, STORAGE, STORAGE_REMOVAL
from steps.step import work

_FILE_SYSTEMS = ("arn:{partition}:fsx:*:{account}:file-system/*",)
_FILE_SYSTEMS_REASON = (
    "FSx assigns file system IDs at creation; the statement requires the InstantStart ownership tag (in the "
    "request to create, on the file system to delete)"
)
_DESCRIBE_FILE_SYSTEMS = Grant(("fsx:DescribeFileSystems",), ("*",), reason=NO_RESOURCE_LEVEL_REASON)

STEPS = (
    work(
        "Ensure Data Bucket",
        STORAGE,
        StorageStageInput,
        lambda ctx: wiring.storage_service(ctx.region).ensure_data_bucket(ctx),
        (
            *buckets(
                ("s3:ListBucket", "s3:GetBucketTagging"),
                ("arn:{partition}:s3:::*",),
                "The caller may name any bucket of this account to mount; this step only checks that it exists "
                "and reads its tags, it never writes to a bucket it did not create",
            ),
            *buckets(
                (
                    "s3:CreateBucket",
                    "s3:PutBucketPublicAccessBlock",
                    "s3:PutEncryptionConfiguration",
                    "s3:PutBucketPolicy",
                    "s3:PutBucketTagging",
                ),
                ("arn:{partition}:s3:::instantstart-*",),
                "Data buckets are named per cluster tag, account and Region at run time "
                "(<deployment>-<tag>-…); the pattern admits only those",
            ),
        ),
    ),
    work(
        "Grant Bucket Access",
        STORAGE,
        StorageStageInput,
        lambda ctx: wiring.storage_service(ctx.region).grant_bucket_access(ctx),
        (READ_S3_CSI_ROLE, PUT_S3_CSI_POLICY),
    ),
    work(
        "Apply Storage Claim",
        KUBERNETES,
        StorageStageInput,
        lambda ctx: wiring.storage_service(ctx.region).apply_storage_claim(ctx),
        (DESCRIBE_EKS_CLUSTER, ASSUME_KUBERNETES_ROLE),
    ),
    work(
        "Create FSx File System",
        STORAGE,
        StorageStageInput,
        lambda ctx: wiring.storage_service(ctx.region).create_fsx_file_system(ctx),
        (
            _DESCRIBE_FILE_SYSTEMS,
            Grant(("fsx:CreateFileSystem", "fsx:TagResource"), _FILE_SYSTEMS, MANAGED_REQUEST, _FILE_SYSTEMS_REASON),
            describe("DescribeSubnets", "DescribeSecurityGroups", "DescribeVpcs"),
            # Documented extra: the first file system of an account creates FSx's service-linked role.
            Grant(
                ("iam:CreateServiceLinkedRole",),
                ("arn:{partition}:iam::{account}:role/aws-service-role/*",),
                {"StringEquals": {"iam:AWSServiceName": "fsx.amazonaws.com"}},
                "The service-linked role path is fixed by AWS; the condition admits only FSx's",
            ),
        ),
    ),
    work(
        "Check FSx File System",
        STORAGE,
        StorageStageInput,
        lambda ctx: wiring.storage_service(ctx.region).check_fsx_file_system(ctx),
        (_DESCRIBE_FILE_SYSTEMS,),
    ),
    work(
        "Apply FSx Claim",
        KUBERNETES,
        StorageStageInput,
        lambda ctx: wiring.storage_service(ctx.region).apply_fsx_claim(ctx),
        (_DESCRIBE_FILE_SYSTEMS, DESCRIBE_EKS_CLUSTER, ASSUME_KUBERNETES_ROLE),
    ),
    work(
        "Delete FSx File Systems",
        STORAGE_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.storage_service(ctx.region).delete_fsx_file_systems(ctx),
        (
            _DESCRIBE_FILE_SYSTEMS,
            Grant(("fsx:DeleteFileSystem",), _FILE_SYSTEMS, MANAGED_RESOURCE, _FILE_SYSTEMS_REASON),
        ),
    ),
    work(
        "Check FSx File Systems Deleted",
        STORAGE_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.storage_service(ctx.region).check_fsx_file_systems_deleted(ctx),
        (_DESCRIBE_FILE_SYSTEMS,),
    ),
)
