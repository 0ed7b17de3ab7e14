"""SageMaker requests → the simulation's model: an instance group's spec and a cluster's settings, with the fields
DescribeCluster returns as they were sent kept beside them."""

from __future__ import annotations

from sandbox.aws.hyperpod.model import ClusterSettings, GroupSpec, JsonObject, Taint

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
RETURNED_AS_SENT = (
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
    *RETURNED_AS_SENT,
    "ThreadsPerCore",
    "InstanceStorageConfigs",
    "MinInstanceCount",
    "AutoPatchConfig",
)


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
