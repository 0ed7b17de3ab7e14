"""Requests and views for cluster lifecycle (stage 1: network and EKS control plane)."""

from __future__ import annotations

import ipaddress
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from controlplane.models.common import ClusterTag, Contract, PageView, Region, View
from controlplane.models.operations import (
    INCARNATION_DESCRIPTION,
    Operation,
    OperationKind,
    OperationStatus,
    OperationView,
    StageStatus,
)
from controlplane.models.preflight import PreflightCheck

KubernetesVersion = Literal["1.32", "1.33", "1.34", "1.35"]
DEFAULT_KUBERNETES_VERSION: KubernetesVersion = "1.34"
VPC_PREFIX_RANGE = (16, 18)


def _valid_vpc_cidr(value: str) -> str:
    try:
        network = ipaddress.IPv4Network(value, strict=True)
    except ValueError as error:
        raise ValueError(f"'{value}' is not an IPv4 network in CIDR notation (e.g. 10.90.0.0/16): {error}") from error
    low, high = VPC_PREFIX_RANGE
    if not low <= network.prefixlen <= high:
        raise ValueError(f"VPC CIDR must be between /{low} and /{high} to leave room for compute subnets")
    if not network.is_private:
        raise ValueError("VPC CIDR must be in a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)")
    return str(network)


VpcCidr = Annotated[str, AfterValidator(_valid_vpc_cidr)]
"""An IPv4 CIDR for a new VPC: /16 to /18 in a private range, normalized (`10.90.0.0/16`)."""


class CreateEksClusterRequest(Contract):
    """Stage 1: a VPC with public and private subnets in two AZs and an EKS control plane."""

    clusterTag: ClusterTag = Field(
        description="Short name; resources are named from it.",
        examples=["demo"],
    )
    region: Region = Field(examples=["us-west-2"])
    vpcCidr: VpcCidr | None = Field(
        default=None,
        description="A private /16 to /18; omit to pick a free one.",
        examples=["10.90.0.0/16"],
    )
    kubernetesVersion: KubernetesVersion = Field(default=DEFAULT_KUBERNETES_VERSION)


EKS_NAME_PATTERN = r"^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$"
HYPERPOD_NAME_PATTERN = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"


class ImportClusterRequest(Contract):
    """Adopt an EKS cluster (and its HyperPod cluster) that the control plane did not create."""

    clusterTag: ClusterTag = Field(description="The control plane's name for it.", examples=["team"])
    region: Region = Field(examples=["us-west-2"])
    eksClusterName: str = Field(
        pattern=EKS_NAME_PATTERN,
        description="ACTIVE, authenticationMode API or API_AND_CONFIG_MAP.",
        examples=["ml-platform"],
    )
    hyperPodClusterName: str | None = Field(
        default=None,
        pattern=HYPERPOD_NAME_PATTERN,
        description="Its InService HyperPod cluster, if any.",
    )


class StageName(StrEnum):
    """The cluster's pipeline stages, in order."""

    EKS = "eks"
    DEPENDENCIES = "dependencies"
    HYPERPOD = "hyperpod"
    STORAGE = "storage"


class ClusterStatus(StrEnum):
    CREATING = "CREATING"
    ACTIVE = "ACTIVE"
    FAILED = "FAILED"
    DELETING = "DELETING"
    IMPORTING = "IMPORTING"


SubnetRole = Literal["public", "private"]
CidrSource = Literal["caller", "automatic"]


class SubnetPlan(View):
    role: SubnetRole
    index: int
    cidr: str
    availabilityZone: str


class NetworkPlan(View):
    """The VPC and subnets stage 1 creates; fixed when the operation is accepted."""

    vpcCidr: str
    cidrSource: CidrSource
    subnets: list[SubnetPlan]


class ImportedNetwork(View):
    """The adopted cluster's network as import found it; stage 4 builds its compute subnets in this VPC."""

    vpcId: str
    vpcCidr: str
    subnetIds: list[str]
    securityGroupId: str = Field(description="The EKS cluster security group HyperPod nodes join.")
    natGatewayId: str | None = Field(
        default=None, description="The NAT gateway the EKS subnets route 0.0.0.0/0 to (None: no egress found)."
    )


class PlannedAction(View):
    action: Literal["create", "update", "delete", "keep"]
    resource: str
    name: str
    detail: str | None = None


class Plan(View):
    """What a mutating request would do, computed from live state, with no side effect."""

    dryRun: bool = True
    actions: list[PlannedAction]
    confirmationToken: str | None = None
    expiresAt: datetime | None = None
    message: str | None = None
    checks: list[PreflightCheck] = Field(
        default_factory=list, description="Pre-flight checks of a creating or growing request; a fail refuses it."
    )


class LastOperation(View):
    """How the cluster's last finished operation ended, so a list shows a half-built cluster as such."""

    operationId: str
    kind: OperationKind
    status: OperationStatus
    failedStage: str | None = Field(default=None, description="The stage that failed or was cancelled, if one did.")
    failedStageNumber: int | None = Field(default=None, description="That stage's place in the operation, from 1.")
    endedAt: datetime

    @classmethod
    def of(cls, operation: Operation, ended_at: datetime) -> LastOperation:
        unfinished = (StageStatus.FAILED, StageStatus.CANCELLED)
        failed = next(
            ((number, stage) for number, stage in enumerate(operation.stages, 1) if stage.status in unfinished), None
        )
        return cls(
            operationId=operation.operationId,
            kind=operation.kind,
            status=operation.status,
            failedStage=failed[1].name if failed else None,
            failedStageNumber=failed[0] if failed else None,
            endedAt=ended_at,
        )


class ClusterRecord(View):
    """The registry's entry for a cluster (persisted)."""

    clusterTag: str
    incarnation: str = Field(description=INCARNATION_DESCRIPTION)
    region: str
    status: ClusterStatus
    eksClusterName: str
    kubernetesVersion: str = DEFAULT_KUBERNETES_VERSION
    vpcCidr: str | None = None
    stagesDone: list[str] = Field(default_factory=list)
    activeOperationId: str | None = None
    lastOperationId: str | None = None
    lastOperation: LastOperation | None = None
    createdAt: datetime
    updatedAt: datetime
    createdBy: str
    accountId: str | None = None
    storageBucket: str | None = None
    storageClaim: str | None = None
    fsxClaim: str | None = None
    imported: bool = False
    hyperPodClusterName: str | None = None
    adopted: list[str] = Field(default_factory=list)
    network: ImportedNetwork | None = None


class ClusterView(View):
    clusterTag: str
    incarnation: str = Field(description=INCARNATION_DESCRIPTION)
    region: str
    status: ClusterStatus
    eksClusterName: str
    kubernetesVersion: str
    vpcCidr: str | None = None
    stagesDone: list[str]
    storageBucket: str | None = None
    storageClaim: str | None = None
    fsxClaim: str | None = None
    activeOperationId: str | None = None
    lastOperationId: str | None = None
    lastOperation: LastOperation | None = Field(
        default=None,
        description="How the last finished operation ended: a failed create leaves an ACTIVE cluster half built.",
    )
    createdAt: datetime
    updatedAt: datetime
    imported: bool = Field(default=False, description="Adopted with POST /clusters/import, not created here.")
    hyperPodClusterName: str | None = None
    adopted: list[str] = Field(
        default_factory=list, description="Stages found done at import; delete keeps what they consist of."
    )

    @classmethod
    def of(cls, record: ClusterRecord) -> ClusterView:
        return cls.model_validate(record.model_dump())


class ClusterDetail(ClusterView):
    eks: dict[str, str | None] = Field(default_factory=dict, description="Live EKS control plane facts.")
    operations: list[OperationView] = Field(default_factory=list)


class ClusterList(PageView):
    clusters: list[ClusterView]


class Accepted(View):
    """202 body of every request that starts a workflow."""

    operationId: str
    status: str
    stages: list[str]
    statusTool: str = "operation_wait"
    operation: OperationView
