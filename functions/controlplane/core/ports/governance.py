"""HyperPod task governance of one Region: the teams' compute quotas on a cluster (SageMaker's ComputeQuota) and
the cluster's scheduler config (ClusterSchedulerConfig: priority classes, fair share)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class QuotaAllocation:
    instance_type: str
    count: int


@dataclass(frozen=True)
class ComputeQuotaSpec:
    """What a team is guaranteed and how it shares: `sharing` Lend | DontLend | LendAndBorrow, `borrow_limit` the
    percentage of its guarantee it may borrow, `preempt` Never | LowerPriority (its own tasks)."""

    name: str
    team: str
    allocations: tuple[QuotaAllocation, ...]
    sharing: str
    borrow_limit: int | None
    preempt: str
    fair_share_weight: int | None


@dataclass(frozen=True)
class ComputeQuota:
    quota_id: str
    spec: ComputeQuotaSpec
    status: str
    version: int
    active: bool


@dataclass(frozen=True)
class SchedulerPolicy:
    """Priority classes by name with their weight (0-100), and whether fair share and idle sharing are on."""

    priority_classes: tuple[tuple[str, int], ...]
    fair_share: bool
    idle_sharing: bool


@dataclass(frozen=True)
class SchedulerConfig:
    config_id: str
    policy: SchedulerPolicy
    status: str
    version: int


class GovernanceGateway(Protocol):
    def quotas(self, cluster_arn: str) -> list[ComputeQuota]:
        """Every compute quota of the cluster (ListComputeQuotas, all pages)."""
        ...

    def create_quota(self, cluster_arn: str, spec: ComputeQuotaSpec, tags: dict[str, str]) -> str:
        """CreateComputeQuota; returns the quota's ID."""
        ...

    def update_quota(self, quota_id: str, version: int, spec: ComputeQuotaSpec, active: bool) -> None:
        """UpdateComputeQuota from `version` (refused when it has moved on); the team stays."""
        ...

    def delete_quota(self, quota_id: str) -> None: ...

    def scheduler_config(self, cluster_arn: str) -> SchedulerConfig | None:
        """The cluster's scheduler config (one at most), described."""
        ...

    def create_scheduler_config(
        self, cluster_arn: str, name: str, policy: SchedulerPolicy, tags: dict[str, str]
    ) -> str: ...

    def update_scheduler_config(self, config_id: str, version: int, policy: SchedulerPolicy) -> None:
        """UpdateClusterSchedulerConfig from `version` (refused when it has moved on)."""
        ...

    def delete_scheduler_config(self, config_id: str) -> None: ...
