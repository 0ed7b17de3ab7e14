"""SageMaker HyperPod clusters (EKS orchestrator)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, tag_dict, tag_list
from controlplane.core.ports import HyperPodCluster, HyperPodClusterSpec, InstanceGroupSpec


class AwsHyperPodGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def find_cluster(self, name: str) -> HyperPodCluster | None:
        sagemaker = client("sagemaker", self._region)
        try:
            cluster = sagemaker.describe_cluster(ClusterName=name)
        except ClientError as error:
            if error_code(error) == "ResourceNotFound":
                return None
            raise
        tags = tag_dict(sagemaker.list_tags(ResourceArn=cluster["ClusterArn"]).get("Tags"))
        return HyperPodCluster(
            name=name,
            arn=cluster["ClusterArn"],
            status=cluster["ClusterStatus"],
            failure_message=cluster.get("FailureMessage"),
            groups=tuple(cluster.get("InstanceGroups", [])),
            tags=tags,
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

    def delete_cluster(self, name: str) -> None:
        try:
            client("sagemaker", self._region).delete_cluster(ClusterName=name)
        except ClientError as error:
            if error_code(error) != "ResourceNotFound":
                raise


DEEP_HEALTH_CHECKS = ["InstanceStress", "InstanceConnectivity"]


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
    return spec
