"""The HyperPod operations the control plane calls, one function each (`OPERATIONS` by wire action name): read the
request, call the simulation, render the response; lists page by an offset token, as SageMaker's do. Cluster events
and operations are newest first unless SortOrder is Ascending [inferred: botocore declares the sort, not its
default]."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sandbox.aws.hyperpod.model import HyperPodError, JsonObject
from sandbox.aws.hyperpod.simulation import HyperPodSimulation, Where
from sandbox.aws.hyperpod.wire.governance import GOVERNANCE_OPERATIONS
from sandbox.aws.hyperpod.wire.requests import CLUSTER_SETTINGS, cluster_settings, group_spec
from sandbox.aws.hyperpod.wire.responses import (
    cluster_summary,
    describe,
    node_summary,
    outcome,
    page_of,
    plan_summary,
    with_token,
)

Operation = Callable[[HyperPodSimulation, Where, JsonObject], JsonObject]


def create_cluster(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    groups = [group_spec(group) for group in request.get("InstanceGroups") or []]
    tags = {tag["Key"]: tag["Value"] for tag in request.get("Tags") or []}
    cluster = simulation.create_cluster(where, request["ClusterName"], groups, cluster_settings(request), tags)
    return {"ClusterArn": cluster.arn}


def describe_cluster(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    return describe(simulation.cluster(where, request["ClusterName"]))


def list_clusters(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    page, token = page_of(simulation.clusters(where), request)
    return with_token({"ClusterSummaries": [cluster_summary(cluster) for cluster in page]}, token)


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
    after = request.get("CreationTimeAfter")
    nodes = cluster.nodes.listed(request.get("InstanceGroupNameContains"), None if after is None else _epoch(after))
    page, token = page_of(nodes, request)
    return with_token({"ClusterNodeSummaries": [node_summary(cluster, node) for node in page]}, token)


def describe_cluster_node(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    cluster = simulation.cluster(where, request["ClusterName"])
    node = cluster.node(request["NodeId"])
    if node is None:
        raise HyperPodError("ResourceNotFound", f"Node {request['NodeId']} not found in cluster {cluster.name}.")
    details = node_summary(cluster, node)
    details["PrivatePrimaryIp"] = node.private_ip
    return {"NodeDetails": details}


def batch_reboot_cluster_nodes(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    return outcome(simulation.reboot_nodes(where, request["ClusterName"], _node_ids(request)), "ErrorCode")


def batch_replace_cluster_nodes(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    return outcome(simulation.replace_nodes(where, request["ClusterName"], _node_ids(request)), "ErrorCode")


def batch_delete_cluster_nodes(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    return outcome(simulation.delete_nodes(where, request["ClusterName"], _node_ids(request)), "Code")


def start_cluster_health_check(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    configurations = list(request["DeepHealthCheckConfigurations"])
    return {"ClusterArn": simulation.start_health_check(where, request["ClusterName"], configurations).arn}


def list_cluster_events(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    cluster = simulation.cluster(where, request["ClusterName"])
    after, before = request.get("EventTimeAfter"), request.get("EventTimeBefore")
    filters = {
        "InstanceGroupName": request.get("InstanceGroupName"),
        "InstanceId": request.get("NodeId"),
        "ResourceType": request.get("ResourceType"),
        "OperationId": request.get("OperationId"),
    }
    events = [
        event
        for event in cluster.events
        if all(value is None or event.get(key) == value for key, value in filters.items())
        and (after is None or event["EventTime"] > _epoch(after))
        and (before is None or event["EventTime"] < _epoch(before))
    ]
    events.sort(key=lambda event: event["EventTime"], reverse=request.get("SortOrder") != "Ascending")
    page, token = page_of(events, request)
    return with_token({"Events": [{k: v for k, v in event.items() if k != "EventDetails"} for event in page]}, token)


def describe_cluster_event(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    cluster = simulation.cluster(where, request["ClusterName"])
    event = next((event for event in cluster.events if event["EventId"] == request["EventId"]), None)
    if event is None:
        raise HyperPodError("ResourceNotFound", f"Event {request['EventId']} not found in cluster {cluster.name}.")
    return {"EventDetails": event}


def list_cluster_operations(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    cluster = simulation.cluster(where, request["ClusterName"])
    operations = [
        operation
        for operation in cluster.operations
        if request.get("Type") in (None, operation["Type"]) and request.get("Status") in (None, operation["Status"])
    ]
    operations.sort(key=lambda operation: operation["CreationTime"], reverse=request.get("SortOrder") != "Ascending")
    page, token = page_of(operations, request)
    return with_token({"ClusterOperationSummaries": [dict(operation) for operation in page]}, token)


def list_tags(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    cluster = simulation.cluster(where, request["ResourceArn"])
    return {"Tags": [{"Key": key, "Value": value} for key, value in cluster.tags.items()]}


def list_training_plans(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    page, token = page_of(simulation.training_plans(where), request)
    return with_token({"TrainingPlanSummaries": [plan_summary(simulation, plan) for plan in page]}, token)


def describe_training_plan(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    plan = simulation.training_plan(where, request["TrainingPlanName"])
    return {**plan_summary(simulation, plan), "UnhealthyInstanceCount": 0, "AvailableSpareInstanceCount": 0}


def search_training_plan_offerings(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    offerings = simulation.search_offerings(where, request)
    return {"TrainingPlanOfferings": [offering.wire(request) for offering in offerings]}


def create_training_plan(simulation: HyperPodSimulation, where: Where, request: JsonObject) -> JsonObject:
    plan = simulation.create_training_plan(where, request["TrainingPlanName"], request["TrainingPlanOfferingId"])
    return {"TrainingPlanArn": plan.arn}


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
    "StartClusterHealthCheck": start_cluster_health_check,
    "ListClusterEvents": list_cluster_events,
    "DescribeClusterEvent": describe_cluster_event,
    "ListClusterOperations": list_cluster_operations,
    "ListTags": list_tags,
    "ListTrainingPlans": list_training_plans,
    "DescribeTrainingPlan": describe_training_plan,
    "SearchTrainingPlanOfferings": search_training_plan_offerings,
    "CreateTrainingPlan": create_training_plan,
    **GOVERNANCE_OPERATIONS,
}


def _node_ids(request: JsonObject) -> list[str]:
    return list(request.get("NodeIds") or [])


def _epoch(moment: Any) -> float:
    """A timestamp of the wire (epoch seconds, or an ISO 8601 string) as epoch seconds."""
    if isinstance(moment, int | float):
        return float(moment)
    return datetime.fromisoformat(str(moment).replace("Z", "+00:00")).timestamp()
