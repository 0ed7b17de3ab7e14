"""SageMaker HyperPod task governance: the compute quotas of a cluster (Create/List/DeleteComputeQuota) and its
scheduler config (Create/List/Describe/Update/DeleteClusterSchedulerConfig)."""

from __future__ import annotations

from typing import Any

from controlplane.adapters.aws.session import client, tag_list
from controlplane.core.ports.governance import (
    ComputeQuota,
    ComputeQuotaSpec,
    QuotaAllocation,
    SchedulerConfig,
    SchedulerPolicy,
)

LIVE = ("Creating", "Created", "Updating", "Updated", "UpdateFailed", "UpdateRollbackFailed")


class AwsGovernanceGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def quotas(self, cluster_arn: str) -> list[ComputeQuota]:
        pages = client("sagemaker", self._region).get_paginator("list_compute_quotas")
        return [
            _quota(summary)
            for page in pages.paginate(ClusterArn=cluster_arn)
            for summary in page.get("ComputeQuotaSummaries", [])
            if summary.get("Status") in LIVE
        ]

    def create_quota(self, cluster_arn: str, spec: ComputeQuotaSpec, tags: dict[str, str]) -> str:
        created = client("sagemaker", self._region).create_compute_quota(
            Name=spec.name,
            ClusterArn=cluster_arn,
            ComputeQuotaConfig=_quota_config(spec),
            ComputeQuotaTarget=_target(spec),
            ActivationState="Enabled",
            Tags=tag_list(tags),
        )
        return str(created["ComputeQuotaId"])

    def update_quota(self, quota_id: str, version: int, spec: ComputeQuotaSpec, active: bool) -> None:
        client("sagemaker", self._region).update_compute_quota(
            ComputeQuotaId=quota_id,
            TargetVersion=version,
            ComputeQuotaConfig=_quota_config(spec),
            ComputeQuotaTarget=_target(spec),
            ActivationState="Enabled" if active else "Disabled",
        )

    def delete_quota(self, quota_id: str) -> None:
        client("sagemaker", self._region).delete_compute_quota(ComputeQuotaId=quota_id)

    def scheduler_config(self, cluster_arn: str) -> SchedulerConfig | None:
        sagemaker = client("sagemaker", self._region)
        pages = sagemaker.get_paginator("list_cluster_scheduler_configs").paginate(ClusterArn=cluster_arn)
        live = [s for page in pages for s in page.get("ClusterSchedulerConfigSummaries", []) if s["Status"] in LIVE]
        if not live:
            return None
        described = sagemaker.describe_cluster_scheduler_config(
            ClusterSchedulerConfigId=live[0]["ClusterSchedulerConfigId"]
        )
        config = described.get("SchedulerConfig") or {}
        return SchedulerConfig(
            config_id=described["ClusterSchedulerConfigId"],
            policy=SchedulerPolicy(
                priority_classes=tuple((p["Name"], int(p["Weight"])) for p in config.get("PriorityClasses") or []),
                fair_share=config.get("FairShare", "Enabled") == "Enabled",
                idle_sharing=config.get("IdleResourceSharing", "Enabled") == "Enabled",
            ),
            status=described["Status"],
            version=int(described["ClusterSchedulerConfigVersion"]),
        )

    def create_scheduler_config(
        self, cluster_arn: str, name: str, policy: SchedulerPolicy, tags: dict[str, str]
    ) -> str:
        created = client("sagemaker", self._region).create_cluster_scheduler_config(
            Name=name, ClusterArn=cluster_arn, SchedulerConfig=_scheduler(policy), Tags=tag_list(tags)
        )
        return str(created["ClusterSchedulerConfigId"])

    def update_scheduler_config(self, config_id: str, version: int, policy: SchedulerPolicy) -> None:
        client("sagemaker", self._region).update_cluster_scheduler_config(
            ClusterSchedulerConfigId=config_id, TargetVersion=version, SchedulerConfig=_scheduler(policy)
        )

    def delete_scheduler_config(self, config_id: str) -> None:
        client("sagemaker", self._region).delete_cluster_scheduler_config(ClusterSchedulerConfigId=config_id)


def _quota_config(spec: ComputeQuotaSpec) -> dict[str, Any]:
    sharing: dict[str, Any] = {"Strategy": spec.sharing}
    if spec.borrow_limit is not None:
        sharing["BorrowLimit"] = spec.borrow_limit
    return {
        "ComputeQuotaResources": [
            {"InstanceType": allocation.instance_type, "Count": allocation.count} for allocation in spec.allocations
        ],
        "ResourceSharingConfig": sharing,
        "PreemptTeamTasks": spec.preempt,
    }


def _target(spec: ComputeQuotaSpec) -> dict[str, Any]:
    target: dict[str, Any] = {"TeamName": spec.team}
    if spec.fair_share_weight is not None:
        target["FairShareWeight"] = spec.fair_share_weight
    return target


def _scheduler(policy: SchedulerPolicy) -> dict[str, Any]:
    return {
        "PriorityClasses": [{"Name": name, "Weight": weight} for name, weight in policy.priority_classes],
        "FairShare": "Enabled" if policy.fair_share else "Disabled",
        "IdleResourceSharing": "Enabled" if policy.idle_sharing else "Disabled",
    }


def _quota(summary: dict[str, Any]) -> ComputeQuota:
    config = summary.get("ComputeQuotaConfig") or {}
    sharing = config.get("ResourceSharingConfig") or {}
    target = summary["ComputeQuotaTarget"]
    return ComputeQuota(
        quota_id=summary["ComputeQuotaId"],
        spec=ComputeQuotaSpec(
            name=summary["Name"],
            team=target["TeamName"],
            allocations=tuple(
                QuotaAllocation(resource["InstanceType"], int(resource.get("Count", 0)))
                for resource in config.get("ComputeQuotaResources") or []
            ),
            sharing=sharing.get("Strategy", "LendAndBorrow"),
            borrow_limit=sharing.get("BorrowLimit"),
            preempt=config.get("PreemptTeamTasks", "Never"),
            fair_share_weight=target.get("FairShareWeight"),
        ),
        status=summary["Status"],
        version=int(summary.get("ComputeQuotaVersion") or 1),
        active=summary.get("ActivationState", "Enabled") == "Enabled",
    )
