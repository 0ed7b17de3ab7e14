"""An in-memory `GovernanceGateway`: the compute quotas per cluster ARN."""

from __future__ import annotations

from dataclasses import dataclass, field

from controlplane.core.ports.governance import ComputeQuota, ComputeQuotaSpec


@dataclass
class InMemoryGovernanceGateway:
    quotas_by_cluster: dict[str, dict[str, ComputeQuota]] = field(default_factory=dict)
    tags: dict[str, dict[str, str]] = field(default_factory=dict)

    def quotas(self, cluster_arn: str) -> list[ComputeQuota]:
        return list(self.quotas_by_cluster.get(cluster_arn, {}).values())

    def create_quota(self, cluster_arn: str, spec: ComputeQuotaSpec, tags: dict[str, str]) -> str:
        quota_id = f"q{len(self.tags):011d}"
        self.quotas_by_cluster.setdefault(cluster_arn, {})[quota_id] = ComputeQuota(quota_id, spec, "Created", 1, True)
        self.tags[quota_id] = tags
        return quota_id

    def delete_quota(self, quota_id: str) -> None:
        for quotas in self.quotas_by_cluster.values():
            quotas.pop(quota_id, None)
