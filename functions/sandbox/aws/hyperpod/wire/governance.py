"""Task governance's operations on the wire (`GOVERNANCE_OPERATIONS` by action name), in botocore's shapes:
Create/Describe/List/Update/DeleteComputeQuota and Create/Describe/List/Update/DeleteClusterSchedulerConfig."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sandbox.aws.hyperpod.model import ComputeQuota, JsonObject, SchedulerConfig
from sandbox.aws.hyperpod.simulation import HyperPodSimulation, Where
from sandbox.aws.hyperpod.wire.responses import page_of, with_token

Operation = Callable[[HyperPodSimulation, Where, JsonObject], JsonObject]


def create_compute_quota(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    quota = simulation.create_quota(
        where,
        request["Name"],
        request["ClusterArn"],
        request["ComputeQuotaConfig"],
        request["ComputeQuotaTarget"],
        request.get("ActivationState", "Enabled"),
        request.get("Description"),
    )
    return {"ComputeQuotaArn": quota.arn, "ComputeQuotaId": quota.quota_id}


def describe_compute_quota(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    quota = simulation.quota(where, request["ComputeQuotaId"])
    described = {**_summary(quota), "ComputeQuotaVersion": quota.version}
    if quota.description is not None:
        described["Description"] = quota.description
    return described


def list_compute_quotas(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    quotas, token = page_of(simulation.quotas(where, request.get("ClusterArn")), request, default_size=10)
    return with_token({"ComputeQuotaSummaries": [_summary(quota) for quota in quotas]}, token)


def update_compute_quota(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    target = request.get("ComputeQuotaTarget") or {}
    changes: JsonObject = {
        key: request[key] for key in ("ComputeQuotaConfig", "ActivationState", "Description") if key in request
    }
    if "FairShareWeight" in target:
        changes["FairShareWeight"] = target["FairShareWeight"]
    quota = simulation.update_quota(
        where, request["ComputeQuotaId"], request["TargetVersion"], changes, target.get("TeamName")
    )
    return {"ComputeQuotaArn": quota.arn, "ComputeQuotaVersion": quota.version}


def delete_compute_quota(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    simulation.delete_quota(where, request["ComputeQuotaId"])
    return {}


def _summary(quota: ComputeQuota) -> dict[str, Any]:
    target: JsonObject = {"TeamName": quota.team}
    if quota.fair_share_weight is not None:
        target["FairShareWeight"] = quota.fair_share_weight
    return {
        "ComputeQuotaArn": quota.arn,
        "ComputeQuotaId": quota.quota_id,
        "Name": quota.name,
        "ComputeQuotaVersion": quota.version,
        "Status": quota.status,
        "ClusterArn": quota.cluster_arn,
        "ComputeQuotaConfig": quota.config,
        "ComputeQuotaTarget": target,
        "ActivationState": quota.activation,
        "CreationTime": quota.created,
        "LastModifiedTime": quota.modified,
    }


def create_cluster_scheduler_config(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    created = simulation.create_scheduler_config(
        where, request["Name"], request["ClusterArn"], request["SchedulerConfig"], request.get("Description")
    )
    return {"ClusterSchedulerConfigArn": created.arn, "ClusterSchedulerConfigId": created.config_id}


def describe_cluster_scheduler_config(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    found = simulation.scheduler_config(where, request["ClusterSchedulerConfigId"])
    described = {**_config_summary(found), "SchedulerConfig": found.config}
    if found.description is not None:
        described["Description"] = found.description
    return described


def list_cluster_scheduler_configs(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    found, token = page_of(simulation.scheduler_configs(where, request.get("ClusterArn")), request, default_size=10)
    return with_token({"ClusterSchedulerConfigSummaries": [_config_summary(c) for c in found]}, token)


def update_cluster_scheduler_config(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    updated = simulation.update_scheduler_config(
        where,
        request["ClusterSchedulerConfigId"],
        request["TargetVersion"],
        request.get("SchedulerConfig"),
        request.get("Description"),
    )
    return {"ClusterSchedulerConfigArn": updated.arn, "ClusterSchedulerConfigVersion": updated.version}


def delete_cluster_scheduler_config(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    simulation.delete_scheduler_config(where, request["ClusterSchedulerConfigId"])
    return {}


def _config_summary(found: SchedulerConfig) -> dict[str, Any]:
    return {
        "ClusterSchedulerConfigArn": found.arn,
        "ClusterSchedulerConfigId": found.config_id,
        "ClusterSchedulerConfigVersion": found.version,
        "Name": found.name,
        "Status": found.status,
        "ClusterArn": found.cluster_arn,
        "CreationTime": found.created,
        "LastModifiedTime": found.modified,
    }


GOVERNANCE_OPERATIONS: dict[str, Operation] = {
    "CreateComputeQuota": create_compute_quota,
    "DescribeComputeQuota": describe_compute_quota,
    "ListComputeQuotas": list_compute_quotas,
    "UpdateComputeQuota": update_compute_quota,
    "DeleteComputeQuota": delete_compute_quota,
    "CreateClusterSchedulerConfig": create_cluster_scheduler_config,
    "DescribeClusterSchedulerConfig": describe_cluster_scheduler_config,
    "ListClusterSchedulerConfigs": list_cluster_scheduler_configs,
    "UpdateClusterSchedulerConfig": update_cluster_scheduler_config,
    "DeleteClusterSchedulerConfig": delete_cluster_scheduler_config,
}
