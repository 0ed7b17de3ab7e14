"""The instance-group workflows' steps: add, update, delete (and release its subnet), software update.

Every change goes through UpdateCluster. Updates resend the group's live configuration through the adapter's one
normalizer, so a scale never loses capacity, network interface, deep health checks, image or overrides. In
Continuous provisioning the cluster stays InService while groups change, so completion is judged from the group's
counts and active operations, never from the cluster status. Each step observes live state first, so that retry and
resume converge.
"""

from __future__ import annotations

from controlplane.core import deadlines
from controlplane.core.hyperpod.conversions import group_spec, port_taints
from controlplane.core.hyperpod.group_rules import changeable_fields
from controlplane.core.hyperpod.stage import lifecycle_uri
from controlplane.core.naming import Deployment, compute_subnet_key, hyperpod_execution_role_name, is_owned
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.hyperpod import GroupChange, HyperPodCluster, HyperPodGateway, RollingUpdate
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.network import NetworkGateway
from controlplane.models.errors import (
    DependencyFailedError,
    InvalidRequestError,
    ResourceNotReadyError,
)
from controlplane.models.workflow import (
    AddInstanceGroupInput,
    DeleteInstanceGroupInput,
    InstanceGroupInput,
    PollState,
    UpdateClusterSoftwareInput,
    UpdateInstanceGroupInput,
    WorkflowState,
)

FAILED_GROUP_STATES = {"Failed"}
SOFTWARE_RUNNING = {"Pending", "InProgress", "RollbackInProgress"}
SOFTWARE_FAILED = {"Failed", "RollbackComplete"}


class InstanceGroupSteps:
    def __init__(
        self, network: NetworkGateway, iam: IamGateway, hyperpod: HyperPodGateway, poll: Poller, deployment: Deployment
    ) -> None:
        self._deployment = deployment
        self._network = network
        self._iam = iam
        self._hyperpod = hyperpod
        self._poll = poll

    def add_instance_group(self, ctx: AddInstanceGroupInput) -> dict[str, str]:
        plan = ctx.hyperpod
        cluster = self._cluster(ctx)
        if cluster.group(plan.instanceGroupName) is not None:
            return {"instanceGroup": plan.instanceGroupName, "action": "found"}
        role = self._iam.find_role(hyperpod_execution_role_name(self._deployment, ctx.clusterTag))
        key = compute_subnet_key(plan.availabilityZone, plan.instanceGroupName if plan.dedicatedSubnet else None)
        subnet = self._network.find_subnets(ctx.clusterTag).get(key)
        if role is None or subnet is None:
            raise ResourceNotReadyError("The HyperPod execution role or the group's compute subnet is missing.")
        override = () if subnet.subnet_id in cluster.subnet_ids else (subnet.subnet_id,)
        self._hyperpod.add_group(
            cluster.name, group_spec(plan, role.arn, lifecycle_uri(ctx), override), cluster.security_group_ids
        )
        return {"instanceGroup": plan.instanceGroupName, "action": "added"}

    def update_instance_group(self, ctx: UpdateInstanceGroupInput) -> dict[str, str]:
        change = ctx.instanceGroup
        cluster = self._cluster(ctx)
        group = cluster.group(change.instanceGroupName)
        if group is None:
            raise InvalidRequestError(f"Instance group {change.instanceGroupName} no longer exists.")
        wanted = change.model_dump(exclude_none=True, exclude={"instanceGroupName"})
        live = changeable_fields(group)
        if all(live[field] == value for field, value in wanted.items()):
            return {"instanceGroup": change.instanceGroupName, "action": "already applied"}
        self._hyperpod.update_group(
            cluster.name,
            change.instanceGroupName,
            GroupChange(
                count=change.instanceCount,
                min_count=change.minInstanceCount,
                labels=change.labels,
                taints=None if change.taints is None else port_taints(change.taints),
                deep_health_checks=change.deepHealthChecks,
            ),
        )
        return {"instanceGroup": change.instanceGroupName, "action": "updated"}

    def check_instance_group(self, ctx: InstanceGroupInput) -> PollState:
        name = ctx.instance_group_name
        group = self._cluster(ctx).group(name)
        if group is None:
            raise ResourceNotReadyError(f"Instance group {name} is not in the cluster yet.")
        status = group.status or ""
        if status in FAILED_GROUP_STATES:
            raise DependencyFailedError(
                f"Instance group {name} is {status}. Check capacity, quota and the lifecycle script (GET "
                f"/clusters/{ctx.clusterTag}/nodes), fix the cause, then resume."
            )
        done = status == "InService" and group.current_count == group.target_count and not group.scaling_operations
        wait = Wait(
            f"instance group {name} to have {group.target_count} instances in service ({group.current_count} so far)",
            deadlines.instances_in_service([group]),
        )
        return self._poll.poll(ctx, wait, done=done, status=status)

    def delete_instance_group(self, ctx: DeleteInstanceGroupInput) -> dict[str, str]:
        name = ctx.instance_group_name
        cluster = self._cluster(ctx)
        group = cluster.group(name)
        if group is None:
            return {"instanceGroup": name, "action": "absent"}
        if group.status != "Deleting":
            self._hyperpod.delete_group(cluster.name, name)
        return {"instanceGroup": name, "action": "deleting"}

    def check_instance_group_deleted(self, ctx: DeleteInstanceGroupInput) -> PollState:
        name = ctx.instance_group_name
        group = self._cluster(ctx).group(name)
        wait = Wait(f"instance group {name} to be deleted", deadlines.HYPERPOD_DELETED)
        return self._poll.poll(ctx, wait, done=group is None, status="DELETED" if group is None else group.status)

    def release_compute_subnet(self, ctx: DeleteInstanceGroupInput) -> dict[str, str]:
        """Delete the group's dedicated subnet (shared subnets stay for the other groups)."""
        name = ctx.instance_group_name
        released = []
        for subnet in self._network.find_subnets(ctx.clusterTag).values():
            if subnet.key == compute_subnet_key(subnet.availability_zone, name):
                self._network.delete_subnet(subnet.subnet_id)
                released.append(subnet.subnet_id)
        return {"released": ", ".join(released) or "no dedicated subnet"}

    def start_software_update(self, ctx: UpdateClusterSoftwareInput) -> dict[str, str]:
        plan = ctx.softwareUpdate
        cluster = self._cluster(ctx)
        groups = [cluster.group(name) for name in plan.instanceGroups]
        if any(group is not None and group.software_update_status in SOFTWARE_RUNNING for group in groups):
            return {"action": "in progress"}
        wanted_image = plan.imageId
        if all(
            group is not None
            and group.image_up_to_date
            and (wanted_image is None or group.desired_image_id == wanted_image)
            for group in groups
        ):
            return {"action": "up to date"}
        policy = plan.rollingPolicy
        self._hyperpod.update_software(
            cluster.name,
            plan.instanceGroups,
            wanted_image,
            RollingUpdate(
                batch_type=policy.batchType, batch_size=policy.batchSize, wait_seconds=policy.waitIntervalSeconds
            ),
        )
        return {"action": "started"}

    def check_software_update(self, ctx: UpdateClusterSoftwareInput) -> PollState:
        plan = ctx.softwareUpdate
        cluster = self._cluster(ctx)
        statuses = {name: _software_status(cluster, name) for name in plan.instanceGroups}
        failed = [name for name, status in statuses.items() if status in SOFTWARE_FAILED]
        if failed:
            raise DependencyFailedError(
                f"The software update failed on {', '.join(failed)} ({', '.join(str(statuses[n]) for n in failed)}); "
                "HyperPod rolled back what it could. Check the cluster events, then start a new update."
            )
        done = cluster.status == "InService" and not any(status in SOFTWARE_RUNNING for status in statuses.values())
        groups = [group for group in cluster.groups if group.name in statuses]
        wait = Wait(
            f"the software update of {', '.join(plan.instanceGroups)} to finish",
            deadlines.software_update(groups, plan.rollingPolicy),
        )
        return self._poll.poll(ctx, wait, done=done, status=cluster.status)

    def _cluster(self, ctx: WorkflowState) -> HyperPodCluster:
        name = ctx.hyperPodClusterName
        cluster = self._hyperpod.find_cluster(name)
        if cluster is None or not is_owned(self._deployment, cluster.tags, ctx.clusterTag):
            raise ResourceNotReadyError(f"HyperPod cluster {name} is missing.")
        return cluster


def _software_status(cluster: HyperPodCluster, name: str) -> str | None:
    group = cluster.group(name)
    return group.software_update_status if group else None
