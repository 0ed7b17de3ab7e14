"""The conditions grants share: the deployment's ownership tags (in the request to create, on the resource to change
or delete), the permissions boundaries a created role must carry, an imported cluster's adoption tag, and calls an
AWS service makes with the caller's credentials. Names are built by `controlplane.core.naming` from `DEPLOYMENT`,
whose fields are the stack's placeholders, so the grants name exactly what the steps create."""

from __future__ import annotations

from controlplane.core.naming import CLUSTER_TAG_KEY, Deployment

# The deployment as the stack renders the grants: its name, Region and partition are placeholders, so the names and
# ownership tags below come from the same builders (`controlplane.core.naming`) the steps use.
DEPLOYMENT = Deployment(name="{deployment}", region="{region}", partition="{partition}")
OWNERSHIP = "instantstart:managed-by=<deployment> and instantstart:deployment-region=<its Region>"


def owned(where: str) -> dict[str, str]:
    """The deployment's ownership tags in the request (`RequestTag`) or on the resource (`ResourceTag`)."""
    return {f"aws:{where}/{key}": value for key, value in DEPLOYMENT.owner_tags().items()}


MANAGED_RESOURCE = {"StringEquals": owned("ResourceTag")}
MANAGED_REQUEST = {"StringEquals": owned("RequestTag")}

# Roles the control plane creates for workloads (IRSA) must carry the workload permissions boundary.
BOUNDED_REQUEST = {"StringEquals": {**owned("RequestTag"), "iam:PermissionsBoundary": "{workload_boundary_arn}"}}
BOUNDED_RESOURCE = {"StringEquals": {**owned("ResourceTag"), "iam:PermissionsBoundary": "{workload_boundary_arn}"}}
# Roles AWS services (EKS, SageMaker) and operators' pods assume, with AWS managed policies attached.
SERVICE_BOUNDED_REQUEST = {"StringEquals": {**owned("RequestTag"), "iam:PermissionsBoundary": "{service_boundary_arn}"}}
SERVICE_BOUNDED_RESOURCE = {
    "StringEquals": {**owned("ResourceTag"), "iam:PermissionsBoundary": "{service_boundary_arn}"}
}
# HyperPod autoscaling roles (karpenter) carry the autoscaling boundary.
AUTOSCALING_BOUNDED = {"iam:PermissionsBoundary": "{autoscaling_boundary_arn}"}

# The cluster (or VPC) carries the tag import adds; only import and release may set or remove that one key.
ADOPTED = {"Null": {f"aws:ResourceTag/{CLUSTER_TAG_KEY}": "false"}}
ADOPTION_TAG_ONLY = {"ForAllValues:StringEquals": {"aws:TagKeys": [CLUSTER_TAG_KEY]}}
ADOPTION_TAG_REASON = (
    "Import adopts a cluster the control plane did not create, so its name or VPC ID is unknown in advance; "
    "the statement admits only the instantstart:cluster tag key"
)

# Calls an AWS service makes with the caller's credentials (forward access sessions), never the caller's own.
VIA_AWS_SERVICE = {"Bool": {"aws:ViaAWSService": "true"}}
