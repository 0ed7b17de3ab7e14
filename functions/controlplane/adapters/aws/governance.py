"""SageMaker HyperPod task governance: the compute quotas of a cluster (Create/List/DeleteComputeQuota)."""

from __future__ import annotations

from typing import Any

from controlplane.adapters.aws.session import client, tag_list
from controlplane.core.ports.governance import ComputeQuota, ComputeQuotaSpec, QuotaAllocation


class AwsGovernanceGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def quotas(self, cluster_arn: str) -> list[ComputeQuota]:
        pages = client("sagemaker", self._region).get_paginator("list_compute_quotas")
        return [
            _quota(summary)
            for page in pages.paginate(ClusterArn=cluster_arn)
            for summary in page.get("ComputeQuotaSummaries", [])
            if summary.get("Status") not in ("Deleting", "Deleted")
        ]

    def create_quota(self, cluster_arn: str, spec: ComputeQuotaSpec, tags: dict[str, str]) -> str:
        sharing: dict[str, Any] = {"Strategy": spec.sharing}
        if spec.borrow_limit is not None:
            sharing["BorrowLimit"] = spec.borrow_limit
        target: dict[str, Any] = {"TeamName": spec.team}
        if spec.fair_share_weight is not None:
            target["FairShareWeight"] = spec.fair_share_weight
        created = client("sagemaker", self._region).create_compute_quota(
            Name=spec.name,
            ClusterArn=cluster_arn,
            ComputeQuotaConfig={
                "ComputeQuotaResources": [
                    {"InstanceType": allocation.instance_type, "Count": allocation.count}
                    for allocation in spec.allocations
                ],
                "ResourceSharingConfig": sharing,
                "PreemptTeamTasks": spec.preempt,
            },
            ComputeQuotaTarget=target,
            ActivationState="Enabled",
            Tags=tag_list(tags),
        )
        return str(created["ComputeQuotaId"])

    def delete_quota(self, quota_id: str) -> None:
        client("sagemaker", self._region).delete_compute_quota(ComputeQuotaId=quota_id)


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
