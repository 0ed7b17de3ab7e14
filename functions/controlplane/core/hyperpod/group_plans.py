"""What a group request that terminates or restarts nodes would do, as the plan its confirmation token is bound to:
a scale-down's nodes, a delete's group and subnet, a software update's groups. Pure functions of the live cluster or
group and the request, shared by the request, its plan and the recheck before a resume (`groups`)."""

from __future__ import annotations

from controlplane.core.hyperpod.group_rules import require_group
from controlplane.core.ports.hyperpod import HyperPodCluster, InstanceGroup
from controlplane.models.clusters import Plan, PlannedAction
from controlplane.models.instance_groups import SoftwareUpdatePlan, SoftwareUpdateRequest


def scale_down_actions(group: InstanceGroup, count: int | None) -> list[PlannedAction]:
    """What a count below the group's current one terminates (nothing for any other change)."""
    if count is None or count >= group.current_count:
        return []
    return [
        PlannedAction(
            action="delete",
            resource="HyperPod node",
            name=f"{group.current_count - count} of {group.current_count} x {group.instance_type} in {group.name}",
            detail=f"scale-down to {count}: HyperPod picks the nodes; they and their volumes are terminated, "
            "with the pods running on them",
        )
    ]


def delete_group_actions(group: InstanceGroup) -> list[PlannedAction]:
    return [
        PlannedAction(
            action="delete",
            resource="HyperPod instance group",
            name=group.name,
            detail=f"{group.current_count} x {group.instance_type}: its nodes and their volumes are terminated",
        ),
        PlannedAction(action="delete", resource="AWS::EC2::Subnet", name="its dedicated subnet, if any"),
    ]


def software_plan(cluster: HyperPodCluster, request: SoftwareUpdateRequest) -> tuple[SoftwareUpdatePlan, Plan]:
    """The groups to patch (default: every group), each with the release it runs now."""
    names = request.instanceGroups or [group.name for group in cluster.groups]
    groups = [require_group(cluster, name) for name in names]
    policy = request.rollingPolicy
    batch = f"{policy.batchSize}{'%' if policy.batchType == 'percentage' else ' instances'} at a time"
    actions = [
        PlannedAction(
            action="update",
            resource="HyperPod instance group",
            name=group.name,
            detail=f"AMI {request.imageId or 'latest HyperPod release'} (now "
            f"{group.image_release_version or 'unknown'}), {batch}",
        )
        for group in groups
    ]
    plan = SoftwareUpdatePlan(instanceGroups=names, imageId=request.imageId, rollingPolicy=policy)
    return plan, Plan(actions=actions)
