"""The simulation's model → SageMaker responses, in the shapes botocore's output models declare: DescribeCluster,
the clusters', nodes' and training plans' summaries, the batch node actions' outcome and List calls' pages."""

from __future__ import annotations

import time
from typing import Any

from sandbox.aws.hyperpod.kubernetes import hostname
from sandbox.aws.hyperpod.model import (
    BatchOutcome,
    Cluster,
    InstanceGroup,
    JsonObject,
    Node,
    Taint,
    TrainingPlan,
    image_status,
)
from sandbox.aws.hyperpod.simulation import HyperPodSimulation
from sandbox.aws.hyperpod.wire.requests import RETURNED_AS_SENT


def describe(cluster: Cluster) -> JsonObject:
    """DescribeCluster's response."""
    echo = cluster.settings.echo
    result: JsonObject = {
        "ClusterArn": cluster.arn,
        "ClusterName": cluster.name,
        "ClusterStatus": cluster.status,
        "CreationTime": cluster.created,
        "InstanceGroups": [_group_details(cluster, group) for group in cluster.groups.values()],
        "NodeRecovery": echo.get("NodeRecovery", "Automatic"),
    }
    if cluster.failure_message:
        result["FailureMessage"] = cluster.failure_message
    for key in (
        "VpcConfig",
        "Orchestrator",
        "TieredStorageConfig",
        "NodeProvisioningMode",
        "ClusterRole",
        "RestrictedInstanceGroupsConfig",
    ):
        if echo.get(key) is not None:
            result[key] = echo[key]
    if cluster.autoscaling_status is not None:
        result["AutoScaling"] = {**echo["AutoScaling"], "Status": cluster.autoscaling_status}
    return result


def _group_details(cluster: Cluster, group: InstanceGroup) -> JsonObject:
    spec = group.spec
    running = cluster.running_nodes(group.name)
    details: JsonObject = {
        "CurrentCount": len(running),
        "TargetCount": group.target,
        "InstanceGroupName": group.name,
        "Status": cluster.group_status(group),
        "ThreadsPerCore": spec.echo.get("ThreadsPerCore", 1),
        "InstanceStorageConfigs": spec.echo.get("InstanceStorageConfigs", []),
        "CurrentImageId": group.image_id,
        "DesiredImageId": group.desired_image_id,
        "CurrentImageReleaseVersion": group.image_version,
        "DesiredImageReleaseVersion": group.desired_image_version,
        "ImageVersionStatus": image_status(group.image_version),
        "KubernetesConfig": {
            "CurrentLabels": group.current_labels,
            "DesiredLabels": spec.labels,
            "CurrentTaints": [_taint(taint) for taint in group.current_taints],
            "DesiredTaints": [_taint(taint) for taint in spec.taints],
        },
        "TargetStateCount": group.target,
    }
    if spec.instance_type:
        details["InstanceType"] = spec.instance_type
    if spec.instance_types:
        types = list(spec.instance_types)
        details["InstanceRequirements"] = {"CurrentInstanceTypes": types, "DesiredInstanceTypes": types}
        details["InstanceTypeDetails"] = [
            {
                "InstanceType": kind,
                "CurrentCount": sum(1 for node in running if node.instance_type == kind),
                "ThreadsPerCore": spec.echo.get("ThreadsPerCore", 1),
            }
            for kind in types
        ]
    if "MinInstanceCount" in spec.echo:
        details["MinCount"] = spec.echo["MinInstanceCount"]
    for key in RETURNED_AS_SENT:
        if key in spec.echo:
            details[key] = spec.echo[key]
    if spec.training_plan_arn:
        details["TrainingPlanArn"] = spec.training_plan_arn
        details["TrainingPlanStatus"] = "Active"
    if spec.echo.get("AutoPatchConfig"):
        patch = dict(spec.echo["AutoPatchConfig"])
        schedule = patch.pop("PatchSchedule", None)
        if schedule:
            patch["CurrentPatchSchedule"] = schedule
            patch["DesiredPatchSchedule"] = schedule
        details["AutoPatchConfig"] = patch
    if group.scaling:
        details["ActiveOperations"] = {"Scaling": group.scaling}
    if group.software_status:
        details["SoftwareUpdateStatus"] = group.software_status
    if group.software_deployment and group.software_pending:
        details["ActiveSoftwareUpdateConfig"] = group.software_deployment
    return details


def cluster_summary(cluster: Cluster) -> JsonObject:
    versions = [group.image_version for group in cluster.groups.values()]
    summary: JsonObject = {
        "ClusterArn": cluster.arn,
        "ClusterName": cluster.name,
        "CreationTime": cluster.created,
        "ClusterStatus": cluster.status,
        "ImageVersionStatus": "UpToDate" if all(image_status(v) == "UpToDate" for v in versions) else "UpdateAvailable",
    }
    if cluster.training_plan_arns():
        summary["TrainingPlanArns"] = cluster.training_plan_arns()
    return summary


def node_summary(cluster: Cluster, node: Node) -> JsonObject:
    status: JsonObject = {"Status": node.status}
    if node.message:
        status["Message"] = node.message
    summary: JsonObject = {
        "InstanceGroupName": node.group,
        "InstanceId": node.instance_id,
        "InstanceType": node.instance_type,
        "LaunchTime": node.launch_time,
        "InstanceStatus": status,
        "PrivateDnsHostname": hostname(cluster.region, node.private_ip),
        "CurrentImageReleaseVersion": node.image_version,
        "ImageVersionStatus": image_status(node.image_version),
    }
    if node.last_software_update:
        summary["LastSoftwareUpdateTime"] = node.last_software_update
    return summary


def plan_summary(simulation: HyperPodSimulation, plan: TrainingPlan) -> JsonObject:
    in_use = simulation.nodes_on_plan(plan)
    status = "Active" if plan.start <= time.time() else "Scheduled"
    return {
        "TrainingPlanArn": plan.arn,
        "TrainingPlanName": plan.name,
        "Status": status,
        "StatusMessage": f"Training plan is {status.lower()}",
        "DurationHours": plan.duration_hours,
        "DurationMinutes": 0,
        "StartTime": plan.start,
        "EndTime": plan.end,
        "UpfrontFee": plan.upfront_fee,
        "CurrencyCode": "USD",
        "TotalInstanceCount": plan.count,
        "AvailableInstanceCount": max(0, plan.count - in_use),
        "InUseInstanceCount": in_use,
        "TargetResources": ["hyperpod-cluster"],
        "ReservedCapacitySummaries": [
            {
                "ReservedCapacityArn": plan.arn.replace(":training-plan/", ":reserved-capacity/"),
                "ReservedCapacityType": "Instance",
                "InstanceType": plan.instance_type,
                "TotalInstanceCount": plan.count,
                "Status": status,
                "AvailabilityZone": plan.zone,
                "AvailabilityZoneId": plan.zone_id,
                "DurationHours": plan.duration_hours,
                "DurationMinutes": 0,
                "StartTime": plan.start,
                "EndTime": plan.end,
            }
        ],
    }


def outcome(outcome: BatchOutcome, code_key: str) -> JsonObject:
    """A batch response; the reboot and replace calls name the failure code ErrorCode, delete names it Code."""
    failed = [{"NodeId": f.node_id, code_key: f.code, "Message": f.message} for f in outcome.failed]
    return {"Successful": outcome.successful, "Failed": failed}


def _taint(taint: Taint) -> JsonObject:
    result = {"Key": taint.key, "Effect": taint.effect}
    if taint.value is not None:
        result["Value"] = taint.value
    return result


def page_of(items: list[Any], request: JsonObject, default_size: int = 100) -> tuple[list[Any], str | None]:
    """One page of a List call and the next token (NextToken: the index to start at; MaxResults or `default_size`)."""
    start = int(request.get("NextToken") or 0)
    end = start + int(request.get("MaxResults") or default_size)
    return items[start:end], (str(end) if end < len(items) else None)


def with_token(result: JsonObject, token: str | None) -> JsonObject:
    if token is not None:
        result["NextToken"] = token
    return result
