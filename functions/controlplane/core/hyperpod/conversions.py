"""Translations between the API's group models (HyperPodPlan, Taint, InstanceGroupView) and the port's entities.

Pure functions, no rules: what a group may be is `group_rules`; how the wire spells it is the SageMaker adapter.
"""

from __future__ import annotations

from controlplane.core.ports.hyperpod import HyperPodCluster, InstanceGroup, InstanceGroupSpec, Taint
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.hyperpod import Taint as TaintModel
from controlplane.models.instance_groups import InstanceGroupView


def group_spec(
    plan: HyperPodPlan, execution_role_arn: str, lifecycle_uri: str, subnet_ids: tuple[str, ...] = ()
) -> InstanceGroupSpec:
    """The resolved group plan as the HyperPod gateway takes it (first group and added groups alike)."""
    return InstanceGroupSpec(
        name=plan.instanceGroupName,
        instance_type=plan.instanceType,
        count=plan.instanceCount,
        execution_role_arn=execution_role_arn,
        lifecycle_uri=lifecycle_uri,
        threads_per_core=plan.threadsPerCore,
        ebs_volume_gb=plan.ebsVolumeSizeGb,
        deep_health_checks=plan.deepHealthChecks,
        capacity_type=plan.capacityType,
        training_plan_arn=plan.trainingPlanArn,
        subnet_ids=subnet_ids,
        min_count=plan.minInstanceCount,
        network_interface=plan.networkInterface,
        labels=dict(plan.labels),
        taints=port_taints(plan.taints),
    )


def port_taints(taints: list[TaintModel]) -> tuple[Taint, ...]:
    return tuple(Taint(key=taint.key, value=taint.value, effect=taint.effect) for taint in taints)


def model_taints(taints: tuple[Taint, ...]) -> list[TaintModel]:
    return [TaintModel(key=taint.key, value=taint.value, effect=taint.effect) for taint in taints]


def group_view(group: InstanceGroup, cluster: HyperPodCluster) -> InstanceGroupView:
    """One live group as the API shows it (a group without its own subnets uses the cluster's)."""
    return InstanceGroupView(
        instanceGroupName=group.name,
        instanceType=group.instance_type,
        status=group.status or "Unknown",
        currentCount=group.current_count,
        targetCount=group.target_count,
        minInstanceCount=group.min_count,
        capacityType=group.capacity_type,
        trainingPlanArn=group.training_plan_arn,
        networkInterface=group.network_interface,
        subnetIds=list(group.subnet_ids or cluster.subnet_ids),
        deepHealthChecks=group.deep_health_checks,
        ebsVolumeSizeGb=group.ebs_volume_gb,
        threadsPerCore=group.threads_per_core,
        labels=dict(group.labels),
        taints=model_taints(group.taints),
        imageReleaseVersion=group.image_release_version,
        softwareUpdateStatus=group.software_update_status,
        scalingOperations=group.scaling_operations,
    )
