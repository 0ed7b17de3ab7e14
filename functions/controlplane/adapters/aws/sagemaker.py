"""SageMaker HyperPod clusters (EKS orchestrator): clusters, instance groups, nodes and software updates."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, tag_dict, tag_list
from controlplane.core.paging import Page, decode_token, encode_token, invalid_token
from controlplane.core.ports.hyperpod import (
    GroupChange,
    HyperPodCluster,
    HyperPodClusterSpec,
    HyperPodNode,
    InstanceGroup,
    InstanceGroupSpec,
    NodeActionOutcome,
    NodeFailure,
    RollingUpdate,
    Taint,
)
from controlplane.models.hyperpod import CapacityType

BATCH_CALLS = {
    "reboot": ("batch_reboot_cluster_nodes", 25),
    "replace": ("batch_replace_cluster_nodes", 25),
    "delete": ("batch_delete_cluster_nodes", 99),
}
# ClusterInstanceGroupDetails fields that ClusterInstanceGroupSpecification takes back unchanged.
RESENT_AS_IS = (
    "InstanceGroupName",
    "InstanceType",
    "ExecutionRole",
    "LifeCycleConfig",
    "ThreadsPerCore",
    "InstanceStorageConfigs",
    "OnStartDeepHealthChecks",
    "TrainingPlanArn",
    "OverrideVpcConfig",
    "ScheduledUpdateConfig",
    "CapacityRequirements",
    "NetworkInterface",
)

# DescribeCluster fields that are cluster-level settings (what UpdateCluster can change besides groups).
CLUSTER_SETTINGS = ("TieredStorageConfig", "AutoScaling", "ClusterRole", "NodeRecovery", "NodeProvisioningMode")


class AwsHyperPodGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def find_cluster(self, name: str) -> HyperPodCluster | None:
        sagemaker = client("sagemaker", self._region)
        try:
            cluster = sagemaker.describe_cluster(ClusterName=name)
            # A cluster whose deletion ends between the two reads is gone as well.
            tags = tag_dict(sagemaker.list_tags(ResourceArn=cluster["ClusterArn"]).get("Tags"))
        except ClientError as error:
            if error_code(error) == "ResourceNotFound":
                return None
            raise
        return HyperPodCluster(
            name=name,
            arn=cluster["ClusterArn"],
            status=cluster["ClusterStatus"],
            failure_message=cluster.get("FailureMessage"),
            groups=tuple(instance_group(details) for details in cluster.get("InstanceGroups", [])),
            tags=tags,
            subnet_ids=tuple(cluster.get("VpcConfig", {}).get("Subnets", [])),
            security_group_ids=tuple(cluster.get("VpcConfig", {}).get("SecurityGroupIds", [])),
            settings={key: cluster[key] for key in CLUSTER_SETTINGS if key in cluster},
            eks_cluster_arn=((cluster.get("Orchestrator") or {}).get("Eks") or {}).get("ClusterArn"),
        )

    def create_cluster(self, spec: HyperPodClusterSpec) -> str:
        request = {
            "ClusterName": spec.name,
            "InstanceGroups": [_group(group, spec.security_group_ids) for group in spec.groups],
            "VpcConfig": {"SecurityGroupIds": list(spec.security_group_ids), "Subnets": list(spec.subnet_ids)},
            "Orchestrator": {"Eks": {"ClusterArn": spec.eks_cluster_arn}},
            "NodeRecovery": spec.node_recovery,
            "NodeProvisioningMode": "Continuous",
            "Tags": tag_list(spec.tags),
        }
        return str(client("sagemaker", self._region).create_cluster(**request)["ClusterArn"])

    def update_settings(self, name: str, settings: dict[str, Any]) -> None:
        client("sagemaker", self._region).update_cluster(ClusterName=name, **settings)

    def delete_cluster(self, name: str) -> None:
        try:
            client("sagemaker", self._region).delete_cluster(ClusterName=name)
        except ClientError as error:
            if error_code(error) != "ResourceNotFound":
                raise

    def add_group(self, cluster_name: str, group: InstanceGroupSpec, security_group_ids: tuple[str, ...]) -> None:
        client("sagemaker", self._region).update_cluster(
            ClusterName=cluster_name, InstanceGroups=[_group(group, security_group_ids)]
        )

    def update_group(self, cluster_name: str, group_name: str, change: GroupChange) -> None:
        sagemaker = client("sagemaker", self._region)
        details = next(
            (
                group
                for group in sagemaker.describe_cluster(ClusterName=cluster_name)["InstanceGroups"]
                if group["InstanceGroupName"] == group_name
            ),
            None,
        )
        if details is None:
            raise LookupError(f"Instance group {group_name} is not in cluster {cluster_name}.")
        sagemaker.update_cluster(ClusterName=cluster_name, InstanceGroups=[changed_group(details, change)])

    def delete_group(self, cluster_name: str, group_name: str) -> None:
        client("sagemaker", self._region).update_cluster(ClusterName=cluster_name, InstanceGroupsToDelete=[group_name])

    def node_page(self, cluster_name: str, limit: int, token: str | None = None) -> Page[HyperPodNode]:
        request: dict[str, Any] = {"ClusterName": cluster_name, "MaxResults": limit}
        if token:
            position = decode_token(token)
            if not isinstance(position, dict) or not isinstance(position.get("sagemaker"), str):
                raise invalid_token()
            request["NextToken"] = position["sagemaker"]
        try:
            response = client("sagemaker", self._region).list_cluster_nodes(**request)
        except ClientError as error:
            if error_code(error) == "ResourceNotFound":
                return Page([])
            if error_code(error) == "ValidationException" and token:
                raise invalid_token() from error
            raise
        next_token = response.get("NextToken")
        return Page(
            [hyperpod_node(node) for node in response["ClusterNodeSummaries"]],
            encode_token({"sagemaker": next_token}) if next_token else None,
        )

    def group_nodes_since(self, cluster_name: str, group: str, since: datetime) -> list[HyperPodNode]:
        paginator = client("sagemaker", self._region).get_paginator("list_cluster_nodes")
        pages = paginator.paginate(
            ClusterName=cluster_name, InstanceGroupNameContains=group, CreationTimeAfter=since, SortOrder="Ascending"
        )
        try:
            summaries = [node for page in pages for node in page["ClusterNodeSummaries"]]
        except ClientError as error:
            if error_code(error) == "ResourceNotFound":
                return []
            raise
        return [hyperpod_node(node) for node in summaries if node["InstanceGroupName"] == group]

    def node(self, cluster_name: str, node_id: str) -> HyperPodNode | None:
        try:
            response = client("sagemaker", self._region).describe_cluster_node(ClusterName=cluster_name, NodeId=node_id)
        except ClientError as error:
            if error_code(error) in ("ResourceNotFound", "ValidationException"):
                return None
            raise
        return hyperpod_node(response["NodeDetails"])

    def node_action(self, cluster_name: str, action: str, node_ids: list[str]) -> NodeActionOutcome:
        method, batch = BATCH_CALLS[action]
        call = getattr(client("sagemaker", self._region), method)
        successful: list[str] = []
        failed: list[NodeFailure] = []
        for start in range(0, len(node_ids), batch):
            response = call(ClusterName=cluster_name, NodeIds=node_ids[start : start + batch])
            successful.extend(response.get("Successful", []))
            failed.extend(
                NodeFailure(
                    node_id=item["NodeId"],
                    code=item.get("Code") or item.get("ErrorCode") or "Failed",
                    message=item.get("Message", ""),
                )
                for item in response.get("Failed", [])
            )
        return NodeActionOutcome(successful=tuple(successful), failed=tuple(failed))

    def update_software(
        self, cluster_name: str, groups: list[str], image_id: str | None, rolling: RollingUpdate
    ) -> None:
        request: dict[str, Any] = {
            "ClusterName": cluster_name,
            "InstanceGroups": [{"InstanceGroupName": name} for name in groups],
            "DeploymentConfig": {
                "RollingUpdatePolicy": {
                    "MaximumBatchSize": {
                        "Type": "CAPACITY_PERCENTAGE" if rolling.batch_type == "percentage" else "INSTANCE_COUNT",
                        "Value": rolling.batch_size,
                    }
                },
                "WaitIntervalInSeconds": rolling.wait_seconds,
            },
        }
        if image_id:
            request["ImageId"] = image_id
        client("sagemaker", self._region).update_cluster_software(**request)

    def start_health_check(self, cluster_name: str, nodes: dict[str, list[str]], checks: list[str]) -> None:
        configurations = [
            {"InstanceGroupName": group, "InstanceIds": node_ids, "DeepHealthChecks": checks}
            for group, node_ids in sorted(nodes.items())
        ]
        client("sagemaker", self._region).start_cluster_health_check(
            ClusterName=cluster_name, DeepHealthCheckConfigurations=configurations
        )


DEEP_HEALTH_CHECKS = ["InstanceStress", "InstanceConnectivity"]


def hyperpod_node(node: dict[str, Any]) -> HyperPodNode:
    """A ClusterNodeSummary or ClusterNodeDetails as the core's entity."""
    return HyperPodNode(
        node_id=node["InstanceId"],
        group=node["InstanceGroupName"],
        instance_type=node["InstanceType"],
        status=node["InstanceStatus"]["Status"],
        message=node["InstanceStatus"].get("Message"),
        launch_time=node.get("LaunchTime"),
        image_version=node.get("CurrentImageReleaseVersion"),
    )


def instance_group(details: dict[str, Any]) -> InstanceGroup:
    """A group's ClusterInstanceGroupDetails as the core's entity (the only reading of those wire keys)."""
    kubernetes = details.get("KubernetesConfig") or {}
    ebs = next(
        (
            config["EbsVolumeConfig"].get("VolumeSizeInGB")
            for config in details.get("InstanceStorageConfigs") or []
            if "EbsVolumeConfig" in config
        ),
        None,
    )
    if details.get("TrainingPlanArn"):
        capacity: CapacityType = "training-plan"
    else:
        capacity = "spot" if "Spot" in (details.get("CapacityRequirements") or {}) else "on-demand"
    return InstanceGroup(
        name=details["InstanceGroupName"],
        instance_type=details.get("InstanceType"),
        status=details.get("Status"),
        current_count=details.get("CurrentCount", 0),
        target_count=details.get("TargetCount", 0),
        min_count=details.get("MinCount"),
        capacity_type=capacity,
        training_plan_arn=details.get("TrainingPlanArn"),
        network_interface=(details.get("NetworkInterface") or {}).get("InterfaceType"),
        subnet_ids=tuple((details.get("OverrideVpcConfig") or {}).get("Subnets") or ()),
        deep_health_checks=bool(details.get("OnStartDeepHealthChecks")),
        ebs_volume_gb=ebs,
        threads_per_core=details.get("ThreadsPerCore"),
        labels=dict(kubernetes.get("DesiredLabels") or {}),
        taints=tuple(
            Taint(key=taint["Key"], value=taint.get("Value"), effect=taint["Effect"])
            for taint in kubernetes.get("DesiredTaints") or []
        ),
        image_release_version=details.get("CurrentImageReleaseVersion"),
        desired_image_id=details.get("DesiredImageId"),
        image_up_to_date=details.get("ImageVersionStatus") == "UpToDate",
        software_update_status=details.get("SoftwareUpdateStatus"),
        scaling_operations=(details.get("ActiveOperations") or {}).get("Scaling", 0),
    )


def _group(group: InstanceGroupSpec, security_group_ids: tuple[str, ...]) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "InstanceGroupName": group.name,
        "InstanceType": group.instance_type,
        "InstanceCount": group.count,
        "ExecutionRole": group.execution_role_arn,
        "LifeCycleConfig": {"SourceS3Uri": group.lifecycle_uri, "OnCreate": "on_create.sh"},
        "ThreadsPerCore": group.threads_per_core,
        "InstanceStorageConfigs": [{"EbsVolumeConfig": {"VolumeSizeInGB": group.ebs_volume_gb}}],
    }
    if group.deep_health_checks:
        spec["OnStartDeepHealthChecks"] = DEEP_HEALTH_CHECKS
    if group.capacity_type == "spot":
        spec["CapacityRequirements"] = {"Spot": {}}
    elif group.capacity_type == "on-demand":
        spec["CapacityRequirements"] = {"OnDemand": {}}
    if group.training_plan_arn:
        spec["TrainingPlanArn"] = group.training_plan_arn
    if group.subnet_ids:
        spec["OverrideVpcConfig"] = {"SecurityGroupIds": list(security_group_ids), "Subnets": list(group.subnet_ids)}
    if group.min_count is not None:
        spec["MinInstanceCount"] = group.min_count
    if group.network_interface:
        spec["NetworkInterface"] = {"InterfaceType": group.network_interface}
    if group.labels or group.taints:
        spec["KubernetesConfig"] = {"Labels": dict(group.labels), "Taints": [_taint(taint) for taint in group.taints]}
    return spec


def _taint(taint: Taint) -> dict[str, str]:
    item = {"Key": taint.key, "Effect": taint.effect}
    if taint.value is not None:
        item["Value"] = taint.value
    return item


def changed_group(details: dict[str, Any], change: GroupChange) -> dict[str, Any]:
    """The one normalizer: a group's live ClusterInstanceGroupDetails turned back into the
    ClusterInstanceGroupSpecification that keeps every field (capacity, network interface, deep health checks,
    image, patching, overrides, Kubernetes config), with only `change` applied."""
    spec: dict[str, Any] = {key: details[key] for key in RESENT_AS_IS if details.get(key) is not None}
    spec["InstanceCount"] = details["TargetCount"]
    if details.get("MinCount") is not None:
        spec["MinInstanceCount"] = details["MinCount"]
    if details.get("InstanceRequirements"):
        spec["InstanceRequirements"] = {"InstanceTypes": details["InstanceRequirements"]["DesiredInstanceTypes"]}
    if details.get("DesiredImageId"):
        spec["ImageId"] = details["DesiredImageId"]
    if details.get("DesiredImageReleaseVersion"):
        spec["ImageReleaseVersion"] = details["DesiredImageReleaseVersion"]
    patching = details.get("AutoPatchConfig")
    if patching:
        spec["AutoPatchConfig"] = {
            key: value for key, value in patching.items() if key not in ("CurrentPatchSchedule", "DesiredPatchSchedule")
        }
        if patching.get("DesiredPatchSchedule"):
            spec["AutoPatchConfig"]["PatchSchedule"] = patching["DesiredPatchSchedule"]
    kubernetes = details.get("KubernetesConfig") or {}
    labels = kubernetes.get("DesiredLabels") or {}
    taints = kubernetes.get("DesiredTaints") or []
    if change.count is not None:
        spec["InstanceCount"] = change.count
    if change.min_count is not None:
        spec["MinInstanceCount"] = change.min_count
    if change.labels is not None:
        labels = dict(change.labels)
    if change.taints is not None:
        taints = [_taint(taint) for taint in change.taints]
    if labels or taints or kubernetes:
        spec["KubernetesConfig"] = {"Labels": labels, "Taints": taints}
    if change.deep_health_checks is True:
        spec["OnStartDeepHealthChecks"] = DEEP_HEALTH_CHECKS
    elif change.deep_health_checks is False:
        spec.pop("OnStartDeepHealthChecks", None)
    return spec
