"""An in-memory `GovernanceGateway`: the compute quotas and the scheduler config per cluster ARN."""

from __future__ import annotations

from dataclasses import dataclass, field

from controlplane.core.ports.governance import (
    ComputeQuota,
    ComputeQuotaSpec,
    QuotaAllocation,
    SchedulerConfig,
    SchedulerPolicy,
)
from controlplane.models.clusters import ClusterRecord


@dataclass
class InMemoryGovernanceGateway:
    quotas_by_cluster: dict[str, dict[str, ComputeQuota]] = field(default_factory=dict)
    tags: dict[str, dict[str, str]] = field(default_factory=dict)
    schedulers: dict[str, SchedulerConfig] = field(default_factory=dict)
    # Raised by the next quota creations (SageMaker refusing one).
    fail_create: Exception | None = None
    # Raised by the next quota deletions.
    fail_delete: Exception | None = None

    def quotas(self, cluster_arn: str) -> list[ComputeQuota]:
        return list(self.quotas_by_cluster.get(cluster_arn, {}).values())

    def create_quota(self, cluster_arn: str, spec: ComputeQuotaSpec, tags: dict[str, str]) -> str:
        if self.fail_create is not None:
            raise self.fail_create
        quota_id = f"q{len(self.tags):011d}"
        self.quotas_by_cluster.setdefault(cluster_arn, {})[quota_id] = ComputeQuota(quota_id, spec, "Created", 1, True)
        self.tags[quota_id] = tags
        return quota_id

    def update_quota(self, quota_id: str, version: int, spec: ComputeQuotaSpec, active: bool) -> None:
        for quotas in self.quotas_by_cluster.values():
            if quota_id in quotas:
                assert version == quotas[quota_id].version, "the service updates from the version it read"
                quotas[quota_id] = ComputeQuota(quota_id, spec, "Updated", version + 1, active)

    def delete_quota(self, quota_id: str) -> None:
        if self.fail_delete is not None:
            raise self.fail_delete
        for quotas in self.quotas_by_cluster.values():
            quotas.pop(quota_id, None)

    def scheduler_config(self, cluster_arn: str) -> SchedulerConfig | None:
        return self.schedulers.get(cluster_arn)

    def create_scheduler_config(
        self, cluster_arn: str, name: str, policy: SchedulerPolicy, tags: dict[str, str]
    ) -> str:
        config_id = f"s{len(self.schedulers):011d}"
        self.schedulers[cluster_arn] = SchedulerConfig(config_id, policy, "Created", 1)
        return config_id

    def update_scheduler_config(self, config_id: str, version: int, policy: SchedulerPolicy) -> None:
        arn, found = next((arn, c) for arn, c in self.schedulers.items() if c.config_id == config_id)
        assert version == found.version, "the service updates from the version it read"
        self.schedulers[arn] = SchedulerConfig(config_id, policy, "Updated", version + 1)

    def delete_scheduler_config(self, config_id: str) -> None:
        self.schedulers = {arn: c for arn, c in self.schedulers.items() if c.config_id != config_id}

    def put_team(self, cluster_arn: str, team: str) -> None:
        """A team with a quota, as if created earlier."""
        spec = ComputeQuotaSpec(
            team, team, (QuotaAllocation("ml.g5.12xlarge", 1),), "LendAndBorrow", None, "Never", None
        )
        self.create_quota(cluster_arn, spec, {})

    def put_priorities(self, cluster_arn: str, *names: str) -> None:
        """A scheduler policy with these priority classes, as if created earlier."""
        policy = SchedulerPolicy(tuple((name, 10 * weight) for weight, name in enumerate(names)), True, True)
        self.create_scheduler_config(cluster_arn, "policy", policy, {})


def every_namespace_ready(record: ClusterRecord, team: str) -> None:
    """TeamTargets' readiness check for services' tests: every team's namespace is prepared (the readiness rules are
    tested against their own fakes in tests/unit/core/governance/test_namespace.py)."""
