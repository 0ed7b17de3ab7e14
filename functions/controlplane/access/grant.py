"""One IAM policy statement (`Grant`), what one function's role is allowed (`FunctionAccess`), and the rules every
grant is checked against when it is declared: no wildcard action, Resource "*" only where IAM accepts nothing else,
and a reason beside every wildcard resource (it becomes the cdk-nag acknowledgement's)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# Actions that the Service Authorization Reference lists without any resource type: IAM evaluates
# them against "*" only. A grant may use Resource "*" only for these (checked below and in tests
# against cfn-lint's copy of the reference).
NO_RESOURCE_LEVEL = frozenset(
    {
        "ec2:DescribeAddresses",
        "ec2:DescribeAvailabilityZones",
        "ec2:DescribeInstanceTypeOfferings",
        "ec2:DescribeInternetGateways",
        "ec2:DescribeNatGateways",
        "ec2:DescribeRouteTables",
        "ec2:DescribeSecurityGroups",
        "ec2:DescribeSubnets",
        "ec2:DescribeVpcEndpoints",
        "ec2:DescribeVpcs",
        "aps:CreateWorkspace",
        "aps:ListWorkspaces",
        "eks:CreateCluster",
        "eks:DescribeAddonVersions",
        "eks:ListClusters",
        "fsx:DescribeFileSystems",
        "iam:ListOpenIDConnectProviders",
        "logs:DescribeLogGroups",
        "pricing:GetProducts",
        "sagemaker:ListClusters",
        "sagemaker:ListClusterSchedulerConfigs",
        "sagemaker:ListComputeQuotas",
        "sagemaker:ListMlflowTrackingServers",
        "sagemaker:ListTrainingPlans",
        "sagemaker:SearchTrainingPlanOfferings",
        "servicequotas:ListServiceQuotas",
        "states:SendTaskSuccess",
        "xray:PutTelemetryRecords",
        "xray:PutTraceSegments",
    }
)
NO_RESOURCE_LEVEL_REASON = (
    "These actions have no resource-level permissions in the IAM Service Authorization Reference, "
    "so IAM only accepts Resource '*' for them"
)

# Item-level DynamoDB access (no Scan, no batch, no table management).
DYNAMODB_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
)

# The tables every step reads and writes: the operations and the cluster registry.
STEP_TABLES = ("operations_table", "clusters_table")


@dataclass(frozen=True)
class Grant:
    """One IAM policy statement: actions on resource templates, under optional conditions."""

    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Why a wildcard resource is needed; becomes the cdk-nag acknowledgement's reason.
    reason: str = ""

    def __post_init__(self) -> None:
        if "*" in self.resources:
            unscoped = sorted(set(self.actions) - NO_RESOURCE_LEVEL)
            if unscoped:
                raise ValueError(f"Resource '*' for actions with resource-level permissions: {unscoped}")
        if any("*" in resource for resource in self.resources) and len(self.reason) < 30:
            raise ValueError(f"Wildcard resources of {self.actions} need a reason of at least 30 characters.")
        if any(action == "*" or action.endswith(":*") for action in self.actions):
            raise ValueError(f"Wildcard actions are not allowed: {self.actions}")


# Signing EKS bearer tokens as the Kubernetes access role (cluster admin through its access entry): a function with
# this grant reaches the Kubernetes API, and the role trusts exactly the functions that have it.
ASSUME_KUBERNETES_ROLE = Grant(("sts:AssumeRole",), ("{kubernetes_role_arn}",))


@dataclass(frozen=True)
class FunctionAccess:
    """Everything one function's role is allowed, besides writing its own logs and traces."""

    grants: tuple[Grant, ...]
    tables: tuple[str, ...] = STEP_TABLES  # TableSpec.setting of the tables it reads and writes

    @property
    def assumes_kubernetes_role(self) -> bool:
        """Whether the function signs EKS bearer tokens as the Kubernetes access role (and so is trusted by it)."""
        return ASSUME_KUBERNETES_ROLE in self.grants

    @classmethod
    def union(cls, accesses: Iterable[FunctionAccess]) -> FunctionAccess:
        """One role serving several functions' needs: each grant and table once, in the order first named."""
        grants: list[Grant] = []
        tables: list[str] = []
        for access in accesses:
            grants.extend(grant for grant in access.grants if grant not in grants)
            tables.extend(table for table in access.tables if table not in tables)
        return cls(tuple(grants), tuple(tables))
