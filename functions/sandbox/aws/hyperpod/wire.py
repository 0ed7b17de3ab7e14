"""SageMaker's HyperPod wire operations over the simulation: request dicts in, response dicts out.

One function per operation the control plane calls (adapters/aws/sagemaker.py and account.py): it reads the
JSON request into the model's types, calls :class:`~sandbox.aws.hyperpod.simulation.HyperPodSimulation`, and
renders the result in the shape botocore's output model declares. Refusals stay
:class:`~sandbox.aws.hyperpod.model.HyperPodError`; :mod:`sandbox.aws.hyperpod.extension` renders them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sandbox.aws.hyperpod.kubernetes import hostname
from sandbox.aws.hyperpod.model import (
    BatchOutcome,
    Cluster,
    ClusterSettings,
    GroupSpec,
    HyperPodError,
    InstanceGroup,
    JsonObject,
    Node,
    Taint,
    TrainingPlan,
    image_status,
)
from sandbox.aws.hyperpod.simulation import HyperPodSimulation, Where

Operation = Callable[[HyperPodSimulation, Where, JsonObject], JsonObject]

# UpdateCluster's cluster-level settings (merged over the cluster's by key).
CLUSTER_SETTINGS = (
    "TieredStorageConfig",
    "NodeRecovery",
    "NodeProvisioningMode",
    "ClusterRole",
    "AutoScaling",
    "Orchestrator",
    "RestrictedInstanceGroupsConfig",
)
# Group fields DescribeCluster returns as they were sent, and those it returns reshaped.
_RETURNED_AS_SENT = (
    "LifeCycleConfig",
    "ExecutionRole",
    "OnStartDeepHealthChecks",
    "OverrideVpcConfig",
    "ScheduledUpdateConfig",
    "CapacityRequirements",
    "SlurmConfig",
    "NetworkInterface",
)
_ECHOED_GROUP_FIELDS = (
    *_RETURNED_AS_SENT,
    "ThreadsPerCore",
    "InstanceStorageConfigs",
    "MinInstanceCount",
    "AutoPatchConfig",
)


# --- requests → model ----------------------------------------------------------------------------


def group_spec(request: JsonObject) -> GroupSpec:
    kubernetes = request.get("KubernetesConfig") or {}
    return GroupSpec(
        name=request["InstanceGroupName"],
        count=request["InstanceCount"],
        instance_type=request.get("InstanceType"),
        instance_types=tuple((request.get("InstanceRequirements") or {}).get("InstanceTypes") or ()),
        lifecycle_source=(request.get("LifeCycleConfig") or {}).get("SourceS3Uri"),
        capacity_types=tuple(request.get("CapacityRequirements") or {}),
        deep_health_checks=bool(request.get("OnStartDeepHealthChecks")),
        labels=dict(kubernetes.get("Labels") or {}),
        taints=tuple(Taint(t["Key"], t["Effect"], t.get("Value")) for t in kubernetes.get("Taints") or []),
        training_plan_arn=request.get("TrainingPlanArn"),
        subnets=tuple((request.get("OverrideVpcConfig") or {}).get("Subnets") or ()),
        execution_role=request.get("ExecutionRole"),
        echo={key: request[key] for key in _ECHOED_GROUP_FIELDS if request.get(key) is not None},
    )


def cluster_settings(request: JsonObject) -> ClusterSettings:
    """The cluster-level settings of a CreateCluster request (or of the merged UpdateCluster state)."""
    autoscaling = request.get("AutoScaling")
    tiered = request.get("TieredStorageConfig") or {}
    return ClusterSettings(
        subnets=tuple((request.get("VpcConfig") or {}).get("Subnets") or ()),
        eks_cluster_arn=((request.get("Orchestrator") or {}).get("Eks") or {}).get("ClusterArn"),
        automatic_recovery=request.get("NodeRecovery", "Automatic") == "Automatic",
        continuous=request.get("NodeProvisioningMode") == "Continuous",
        cluster_role=request.get("ClusterRole"),
        autoscaling=None if not autoscaling else autoscaling.get("Mode") == "Enable",
        tiered_memory_percentage=tiered.get("InstanceMemoryAllocationPercentage")
        if tiered.get("Mode") == "Enable"
        else None,
        restricted_groups=bool(request.get("RestrictedInstanceGroups")),
        echo={key: value for key, value in request.items() if key not in ("ClusterName", "InstanceGroups", "Tags")},
    )


# --- operations ----------------------------------------------------------------------------------


def create_cluster(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    groups = [group_spec(group) for group in request.get("InstanceGroups") or []]
    tags = {tag["Key"]: tag["Value"] for tag in request.get("Tags") or []}
    cluster = simulation.create_cluster(where, request["ClusterName"], groups, cluster_settings(request), tags)
    return {"ClusterArn": cluster.arn}


def describe_cluster(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    return describe(simulation.cluster(where, request["ClusterName"]))


def list_clusters(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    page, token = _page(simulation.clusters(where), request)
    return _with_token({"ClusterSummaries": [_cluster_summary(cluster) for cluster in page]}, token)


def delete_cluster(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    return {"ClusterArn": simulation.delete_cluster(where, request["ClusterName"]).arn}


def update_cluster(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    cluster = simulation.cluster(where, request["ClusterName"])
    settings = None
    if any(key in request for key in CLUSTER_SETTINGS):
        changed = {key: request[key] for key in CLUSTER_SETTINGS if key in request}
        settings = cluster_settings({**cluster.settings.echo, **changed})
    autoscaling = request.get("AutoScaling")
    updated = simulation.update_cluster(
        where,
        request["ClusterName"],
        [group_spec(group) for group in request.get("InstanceGroups") or []],
        list(request.get("InstanceGroupsToDelete") or []),
        settings,
        None if autoscaling is None else autoscaling.get("Mode") == "Enable",
    )
    return {"ClusterArn": updated.arn}


def update_cluster_software(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    groups = request.get("InstanceGroups")
    versions = {g["InstanceGroupName"]: g.get("ImageReleaseVersion") for g in groups} if groups else None
    cluster = simulation.update_software(
        where, request["ClusterName"], versions, request.get("ImageId"), request.get("DeploymentConfig")
    )
    return {"ClusterArn": cluster.arn}


def list_cluster_nodes(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    cluster = simulation.cluster(where, request["ClusterName"])
    nodes = sorted(cluster.nodes, key=lambda node: node.launch_time)
    after = request.get("CreationTimeAfter")
    if after is not None:
        nodes = [node for node in nodes if node.launch_time > _epoch(after)]
    group = request.get("InstanceGroupNameContains")
    if group:
        nodes = [node for node in nodes if group in node.group]
    page, token = _page(nodes, request)
    return _with_token({"ClusterNodeSummaries": [_node_summary(cluster, node) for node in page]}, token)


def describe_cluster_node(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    cluster = simulation.cluster(where, request["ClusterName"])
    node = cluster.node(request["NodeId"])
    if node is None:
        raise HyperPodError("ResourceNotFound", f"Node {request['NodeId']} not found in cluster {cluster.name}.")
    details = _node_summary(cluster, node)
    details["PrivatePrimaryIp"] = node.private_ip
    return {"NodeDetails": details}


def batch_reboot_cluster_nodes(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    return _outcome(simulation.reboot_nodes(where, request["ClusterName"], _node_ids(request)), "ErrorCode")


def batch_replace_cluster_nodes(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    return _outcome(simulation.replace_nodes(where, request["ClusterName"], _node_ids(request)), "ErrorCode")


def batch_delete_cluster_nodes(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    return _outcome(simulation.delete_nodes(where, request["ClusterName"], _node_ids(request)), "Code")


def list_tags(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    cluster = simulation.cluster(where, request["ResourceArn"])
    return {"Tags": [{"Key": key, "Value": value} for key, value in cluster.tags.items()]}


def list_training_plans(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    page, token = _page(simulation.training_plans(where), request)
    return _with_token({"TrainingPlanSummaries": [_plan_summary(simulation, plan) for plan in page]}, token)


def describe_training_plan(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    plan = simulation.training_plan(where, request["TrainingPlanName"])
    return {**_plan_summary(simulation, plan), "UnhealthyInstanceCount": 0, "AvailableSpareInstanceCount": 0}


OPERATIONS: dict[str, Operation] = {
    "CreateCluster": create_cluster,
    "DescribeCluster": describe_cluster,
    "ListClusters": list_clusters,
    "DeleteCluster": delete_cluster,
    "UpdateCluster": update_cluster,
    "UpdateClusterSoftware": update_cluster_software,
    "ListClusterNodes": list_cluster_nodes,
    "DescribeClusterNode": describe_cluster_node,
    "BatchRebootClusterNodes": batch_reboot_cluster_nodes,
    "BatchReplaceClusterNodes": batch_replace_cluster_nodes,
    "BatchDeleteClusterNodes": batch_delete_cluster_nodes,
    "ListTags": list_tags,
    "ListTrainingPlans": list_training_plans,
    "DescribeTrainingPlan": describe_training_plan,
}


# --- model → responses ---------------------------------------------------------------------------


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
    for key in _RETURNED_AS_SENT:
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


def _cluster_summary(cluster: Cluster) -> JsonObject:
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


def _node_summary(cluster: Cluster, node: Node) -> JsonObject:
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


def _plan_summary(simulation: HyperPodSimulation, plan: TrainingPlan) -> JsonObject:
    in_use = simulation.nodes_on_plan(plan)
    return {
        "TrainingPlanArn": plan.arn,
        "TrainingPlanName": plan.name,
        "Status": "Active",
        "StatusMessage": "Training plan is active",
        "DurationHours": plan.duration_hours,
        "DurationMinutes": 0,
        "StartTime": plan.start,
        "EndTime": plan.end,
        "UpfrontFee": "0.00",
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
                "Status": "Active",
                "AvailabilityZone": plan.zone,
                "AvailabilityZoneId": plan.zone_id,
                "DurationHours": plan.duration_hours,
                "DurationMinutes": 0,
                "StartTime": plan.start,
                "EndTime": plan.end,
            }
        ],
    }


def _outcome(outcome: BatchOutcome, code_key: str) -> JsonObject:
    """A batch response; the reboot and replace calls name the failure code ErrorCode, delete names it Code."""
    failed = [{"NodeId": f.node_id, code_key: f.code, "Message": f.message} for f in outcome.failed]
    return {"Successful": outcome.successful, "Failed": failed}


def _node_ids(request: JsonObject) -> list[str]:
    return list(request.get("NodeIds") or [])


def _taint(taint: Taint) -> JsonObject:
    result = {"Key": taint.key, "Effect": taint.effect}
    if taint.value is not None:
        result["Value"] = taint.value
    return result


def _epoch(moment: Any) -> float:
    """A timestamp of the wire (epoch seconds, or an ISO 8601 string) as epoch seconds."""
    if isinstance(moment, int | float):
        return float(moment)
    return datetime.fromisoformat(str(moment).replace("Z", "+00:00")).timestamp()


def _page(items: list[Any], request: JsonObject) -> tuple[list[Any], str | None]:
    start = int(request.get("NextToken") or 0)
    end = start + int(request.get("MaxResults") or 100)
    return items[start:end], (str(end) if end < len(items) else None)


def _with_token(result: JsonObject, token: str | None) -> JsonObject:
    if token is not None:
        result["NextToken"] = token
    return result
