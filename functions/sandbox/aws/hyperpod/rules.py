"""What HyperPod refuses: the service's validation of cluster settings and instance groups, as pure functions.

Each rule raises :class:`~sandbox.aws.hyperpod.model.HyperPodError` with SageMaker's code and a message that
says what to change; the simulation calls them before it changes anything.
"""

from __future__ import annotations

from controlplane.models.instance_types import instance_type as lookup_instance_type
from sandbox.aws.hyperpod.model import (
    Cluster,
    ClusterSettings,
    GroupSpec,
    HyperPodError,
    TrainingPlan,
    validation,
)


def check_new_cluster(name: str, groups: list[GroupSpec], settings: ClusterSettings, exists: bool) -> None:
    if exists:
        raise HyperPodError("ResourceInUse", f"Cluster with name {name} already exists.")
    if not groups and not settings.restricted_groups:
        raise validation("At least one instance group must be specified.")
    names = [group.name for group in groups]
    if len(set(names)) != len(names):
        raise validation("Instance group names must be unique within a cluster.")


def check_orchestrator(account: str, region: str, arn: str, eks: tuple[str, str] | None) -> None:
    """The EKS cluster at ``arn`` (its status and authentication mode, None when absent) can orchestrate."""
    parts = arn.split(":")
    if (parts[4], parts[3]) != (account, region):
        raise validation(f"The EKS cluster {arn} must be in the same account and region as the cluster.")
    if eks is None:
        raise validation(f"Unable to find EKS cluster {arn}.")
    status, mode = eks
    if status != "ACTIVE":
        raise validation(
            f"The EKS cluster {arn} is in {status} status; it must be ACTIVE to be used as the orchestrator."
        )
    if mode not in ("API", "API_AND_CONFIG_MAP"):
        raise validation(
            f"The EKS cluster {arn} uses authentication mode {mode}. HyperPod requires the EKS cluster "
            "authentication mode to be API or API_AND_CONFIG_MAP."
        )


def check_settings(settings: ClusterSettings) -> None:
    if settings.autoscaling:
        if not settings.continuous:
            raise validation("AutoScaling requires NodeProvisioningMode to be Continuous.")
        if not settings.cluster_role:
            raise validation("ClusterRole is required when AutoScaling is enabled.")
    percentage = settings.tiered_memory_percentage
    if percentage is not None and not 20 <= percentage <= 100:
        raise validation("InstanceMemoryAllocationPercentage must be between 20 and 100.")


def check_settings_change(cluster: Cluster, settings: ClusterSettings) -> None:
    if cluster.settings.autoscaling and settings.cluster_role != cluster.settings.cluster_role:
        raise validation("ClusterRole cannot be updated while autoscaling is enabled.")
    check_settings(settings)


def check_mutable(cluster: Cluster) -> None:
    """Updates wait for creation, deletion and (unless the cluster provisions continuously) other updates."""
    if cluster.status in ("Creating", "Deleting") or (
        not cluster.settings.continuous and cluster.status in ("Updating", "SystemUpdating")
    ):
        raise HyperPodError(
            "ConflictException", f"Cluster {cluster.name} is in {cluster.status} status and cannot be updated."
        )


def check_group_change(cluster: Cluster, spec: GroupSpec, deleted: list[str]) -> None:
    if spec.name in deleted:
        raise validation(f"Instance group {spec.name} cannot be both updated and deleted.")
    existing = cluster.groups.get(spec.name)
    if existing and spec.instance_type and spec.instance_type != existing.spec.instance_type:
        raise validation(
            f"Instance group {existing.name}: the instance type cannot be changed "
            f"({existing.spec.instance_type} → {spec.instance_type})."
        )


def check_group(spec: GroupSpec) -> None:
    """One group's request on its own (its subnets and training plan are checked by the caller)."""
    name = spec.name
    if spec.instance_type and spec.instance_types:
        raise validation(f"Instance group {name}: specify either InstanceType or InstanceRequirements, not both.")
    if not spec.instance_type and not spec.instance_types:
        raise validation(f"Instance group {name}: InstanceType is required.")
    source = spec.lifecycle_source
    if source is not None and not source.startswith("s3://sagemaker-"):
        raise validation(
            f"Instance group {name}: LifeCycleConfig.SourceS3Uri {source} is invalid; the S3 bucket name must "
            "start with 'sagemaker-' (s3://sagemaker-...)."
        )
    if {"Spot", "OnDemand"} <= set(spec.capacity_types):
        raise validation(
            f"Instance group {name}: CapacityRequirements may specify only one of Spot or OnDemand, not both."
        )
    if spec.deep_health_checks:
        known = lookup_instance_type(spec.instance_type or "")
        if known is not None and not known.deep_health_checks:
            raise validation(
                f"Instance group {name}: deep health checks are not supported for instance type {known.name}."
            )
        if spec.taints:
            raise validation(
                f"Instance group {name}: custom taints are not supported on instance groups with deep health checks."
            )


def check_training_plan(spec: GroupSpec, zones: set[str], plan: TrainingPlan | None) -> None:
    """A group naming a training plan, given its subnets' zones and the plan (None: no such plan)."""
    name, arn = spec.name, spec.training_plan_arn
    if plan is None:
        raise validation(f"Instance group {name}: training plan {arn} does not exist.")
    if plan.instance_type != spec.instance_type:
        raise validation(
            f"Instance group {name}: instance type {spec.instance_type} does not match the instance "
            f"type {plan.instance_type} of training plan {arn}."
        )
    if zones and plan.zone not in zones:
        raise validation(
            f"Instance group {name}: training plan {arn} reserves capacity in {plan.zone}, which none of the "
            "group's subnets are in."
        )
    if spec.count > plan.count:
        raise validation(
            f"Instance group {name}: InstanceCount {spec.count} exceeds the {plan.count} instances reserved by "
            f"training plan {arn}."
        )
