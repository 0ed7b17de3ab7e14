"""Instance groups of a running HyperPod cluster: the API side (validate, plan, start) and the workflow steps.

Every change goes through UpdateCluster. Updates resend the group's live configuration through the adapter's
one normalizer, so a scale never loses capacity, network interface, deep health checks, image or overrides.
In Continuous provisioning the cluster stays InService while groups change, so completion is judged from the
group's counts and active operations, never from the cluster status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controlplane.core.auth import Actor
from controlplane.core.clusters.registry import ClusterService
from controlplane.core.confirmations import Confirmations
from controlplane.core.hyperpod import group_spec, lifecycle_uri, port_taints
from controlplane.core.hyperpod_planning import HyperPodPlanner
from controlplane.core.naming import (
    compute_subnet_key,
    hyperpod_cluster_of,
    hyperpod_execution_role_name,
    is_owned,
)
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.hyperpod import GroupChange, HyperPodCluster, HyperPodGateway, RollingUpdate
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.core.ports.network import NetworkGateway
from controlplane.core.stack_settings import PollSettings
from controlplane.models.clusters import ClusterRecord, Plan, PlannedAction, StageName
from controlplane.models.errors import (
    ClusterExistsError,
    ClusterNotReadyError,
    DependencyFailedError,
    ForeignResourceError,
    InvalidRequestError,
    NotFoundError,
    ResourceNotReadyError,
    WaitTimeoutError,
)
from controlplane.models.hyperpod import CapacityType, HyperPodPlan
from controlplane.models.hyperpod import Taint as TaintModel
from controlplane.models.instance_groups import (
    AddInstanceGroupRequest,
    FieldOutcome,
    InstanceGroupChange,
    InstanceGroupList,
    InstanceGroupView,
    SoftwareUpdatePlan,
    SoftwareUpdateRequest,
    UpdateInstanceGroupRequest,
)
from controlplane.models.instance_types import instance_type
from controlplane.models.operations import Operation, OperationKind
from controlplane.models.status import GROUP_LABEL
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
DELETE_GROUP_ACTION = "delete-instance-group"


class InstanceGroupNotFoundError(NotFoundError):
    code = "InstanceGroupNotFound"


class InstanceGroupService:
    """What callers ask of instance groups: list, add, update (explicit diff), delete (plan, confirm), patch."""

    def __init__(
        self,
        clusters: ClusterService,
        operations: OperationService,
        planner: HyperPodPlanner,
        confirmations: Confirmations,
        hyperpod: Callable[[str], HyperPodGateway],
        eks: Callable[[str], EksGateway],
        kubernetes: KubernetesGateway,
    ) -> None:
        self._clusters = clusters
        self._operations = operations
        self._planner = planner
        self._confirmations = confirmations
        self._hyperpod = hyperpod
        self._eks = eks
        self._kubernetes = kubernetes

    # --- reads -------------------------------------------------------------------------------

    def list(self, cluster_tag: str) -> InstanceGroupList:
        _, cluster = self._live(cluster_tag, changing=False)
        return InstanceGroupList(
            clusterTag=cluster_tag,
            hyperPodClusterName=cluster.name,
            hyperPodStatus=cluster.status,
            instanceGroups=[group_view(group, cluster) for group in cluster.groups],
        )

    # --- add ---------------------------------------------------------------------------------

    def plan_add(self, cluster_tag: str, request: AddInstanceGroupRequest) -> Plan:
        _, resolved = self._new_group(cluster_tag, request)
        zone = resolved.availabilityZone
        capacity = (
            f"training plan {resolved.trainingPlanArn}"
            if resolved.trainingPlanArn
            else f"{resolved.capacityType} capacity"
        )
        actions = [
            PlannedAction(
                action="create",
                resource="AWS::EC2::Subnet",
                name=f"compute subnet in {zone}" + (" (dedicated)" if resolved.dedicatedSubnet else ""),
                detail="only if it does not exist yet",
            ),
            PlannedAction(
                action="create",
                resource="HyperPod instance group",
                name=resolved.instanceGroupName,
                detail=f"{resolved.instanceCount} x {resolved.instanceType} in {zone}, {capacity}, "
                f"network interface {resolved.networkInterface or 'default'}, deep health checks "
                f"{'on' if resolved.deepHealthChecks else 'off'}",
            ),
        ]
        return Plan(actions=actions)

    def add(self, cluster_tag: str, request: AddInstanceGroupRequest, actor: Actor) -> Operation:
        record, resolved = self._new_group(cluster_tag, request)
        return self._operations.start(record, actor, OperationKind.ADD_INSTANCE_GROUP, hyperpod=resolved)

    def _new_group(self, cluster_tag: str, request: AddInstanceGroupRequest) -> tuple[ClusterRecord, HyperPodPlan]:
        record, cluster = self._live(cluster_tag)
        if cluster.group(request.instanceGroupName) is not None:
            raise ClusterExistsError(
                f"Instance group {request.instanceGroupName} already exists in {cluster.name}; pick another name or "
                "change the existing group with PATCH.",
                {"instanceGroupName": request.instanceGroupName},
            )
        return record, self._planner.resolve_group(record.region, request)

    # --- update (explicit diff) --------------------------------------------------------------

    def diff(self, cluster_tag: str, name: str, request: UpdateInstanceGroupRequest) -> dict[str, FieldOutcome]:
        """Per sent field: unchanged when the live value already equals it, else updated. Refuses immutable changes
        and counts below the group's minimum before anything happens."""
        _, cluster = self._live(cluster_tag)
        return self._diff(cluster, name, request)

    def _diff(
        self, cluster: HyperPodCluster, name: str, request: UpdateInstanceGroupRequest
    ) -> dict[str, FieldOutcome]:
        view = group_view(self._group(cluster, name), cluster)
        sent = request.model_dump(exclude_unset=True)
        for field in ("instanceType", "networkInterface"):
            if field in sent and sent[field] != getattr(view, field):
                raise InvalidRequestError(
                    f"{field} of instance group {name} is immutable ({getattr(view, field)}); add a new group with "
                    f"{field} {sent[field]} and delete this one instead.",
                    {field: getattr(view, field)},
                )
        minimum = sent.get("minInstanceCount", view.minInstanceCount) or 0
        count = sent.get("instanceCount", view.targetCount)
        if count < minimum:
            raise InvalidRequestError(
                f"Instance group {name} needs at least {minimum} instances (minInstanceCount); scale to {minimum} or "
                "more, or lower minInstanceCount in the same request.",
                {"minInstanceCount": minimum},
            )
        taints = sent.get("taints", [taint.model_dump() for taint in view.taints])
        checks = sent.get("deepHealthChecks", view.deepHealthChecks)
        if taints and checks:
            raise InvalidRequestError(
                f"Instance group {name} would have custom taints and deep health checks; HyperPod allows only one. "
                "Send deepHealthChecks false or drop the taints."
            )
        if checks and not view.deepHealthChecks:
            known = instance_type(view.instanceType or "")
            if known is None or not known.deep_health_checks:
                raise InvalidRequestError(f"{view.instanceType} does not support deep health checks.")
        live = changeable_fields(view)
        return {field: "unchanged" if live[field] == value else "updated" for field, value in sent.items()}

    def update(
        self, cluster_tag: str, name: str, request: UpdateInstanceGroupRequest, actor: Actor
    ) -> tuple[dict[str, FieldOutcome], Operation | None]:
        record, cluster = self._live(cluster_tag)
        changes = self._diff(cluster, name, request)
        changed = {field for field, outcome in changes.items() if outcome != "unchanged"}
        if not changed:
            return changes, None
        change = InstanceGroupChange(instanceGroupName=name, **{field: getattr(request, field) for field in changed})
        operation = self._operations.start(record, actor, OperationKind.UPDATE_INSTANCE_GROUP, instanceGroup=change)
        return changes, operation

    # --- delete (plan, confirm) --------------------------------------------------------------

    def plan_delete(self, cluster_tag: str, name: str, actor: Actor) -> Plan:
        record, cluster = self._live(cluster_tag)
        group = self._group(cluster, name)
        self._refuse_if_in_use(record, name)
        token, expires_at = self._confirmations.issue(actor, DELETE_GROUP_ACTION, f"{cluster_tag}/{name}")
        return Plan(
            actions=[
                PlannedAction(
                    action="delete",
                    resource="HyperPod instance group",
                    name=name,
                    detail=f"{group.get('CurrentCount', 0)} x {group.get('InstanceType')}: its nodes and their "
                    "volumes are terminated",
                ),
                PlannedAction(action="delete", resource="AWS::EC2::Subnet", name="its dedicated subnet, if any"),
            ],
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Deleting instance group {name} terminates its nodes. Ask the person to confirm, then repeat the "
            "request with confirmationToken.",
        )

    def delete(self, cluster_tag: str, name: str, token: str, actor: Actor) -> Operation:
        record, cluster = self._live(cluster_tag)
        self._group(cluster, name)
        self._confirmations.redeem(
            token,
            actor,
            DELETE_GROUP_ACTION,
            f"{cluster_tag}/{name}",
            f"Call DELETE /clusters/{cluster_tag}/instance-groups/{name} without a token",
        )
        self._refuse_if_in_use(record, name)
        return self._operations.start(
            record,
            actor,
            OperationKind.DELETE_INSTANCE_GROUP,
            instanceGroup=InstanceGroupChange(instanceGroupName=name),
        )

    # --- software update ---------------------------------------------------------------------

    def plan_software_update(self, cluster_tag: str, request: SoftwareUpdateRequest) -> Plan:
        _, cluster, plan = self._software_update(cluster_tag, request)
        policy = plan.rollingPolicy
        batch = f"{policy.batchSize}{'%' if policy.batchType == 'percentage' else ' instances'} at a time"
        actions = [
            PlannedAction(
                action="update",
                resource="HyperPod instance group",
                name=name,
                detail=f"AMI {request.imageId or 'latest HyperPod release'} (now "
                f"{self._group(cluster, name).get('CurrentImageReleaseVersion') or 'unknown'}), {batch}",
            )
            for name in plan.instanceGroups
        ]
        return Plan(actions=actions)

    def update_software(self, cluster_tag: str, request: SoftwareUpdateRequest, actor: Actor) -> Operation:
        record, _, plan = self._software_update(cluster_tag, request)
        return self._operations.start(record, actor, OperationKind.UPDATE_CLUSTER_SOFTWARE, softwareUpdate=plan)

    # --- helpers -----------------------------------------------------------------------------

    def _software_update(
        self, cluster_tag: str, request: SoftwareUpdateRequest
    ) -> tuple[ClusterRecord, HyperPodCluster, SoftwareUpdatePlan]:
        record, cluster = self._live(cluster_tag)
        names = request.instanceGroups or [group["InstanceGroupName"] for group in cluster.groups]
        for name in names:
            self._group(cluster, name)
        policy = request.rollingPolicy
        if policy.batchType == "percentage" and policy.batchSize > 100:
            raise InvalidRequestError("A percentage batch size is at most 100.")
        return record, cluster, SoftwareUpdatePlan(instanceGroups=names, imageId=request.imageId, rollingPolicy=policy)

    def _live(self, cluster_tag: str, changing: bool = True) -> tuple[ClusterRecord, HyperPodCluster]:
        """The record and its HyperPod cluster; for a change, also that the cluster is the control plane's."""
        record = self._clusters.get(cluster_tag)
        if changing:
            refuse_adopted_hyperpod(record)
        cluster = (
            self._hyperpod(record.region).find_cluster(hyperpod_cluster_of(cluster_tag, record.hyperPodClusterName))
            if StageName.HYPERPOD.value in record.stagesDone
            else None
        )
        if cluster is None:
            raise ClusterNotReadyError(
                f"Cluster '{cluster_tag}' has no HyperPod cluster yet; finish stage 4 (POST "
                f"/clusters/{cluster_tag}/hyperpod) first.",
                {"stagesDone": record.stagesDone},
            )
        return record, cluster

    @staticmethod
    def _group(cluster: HyperPodCluster, name: str) -> dict[str, Any]:
        group = cluster.group(name)
        if group is None:
            names = [group["InstanceGroupName"] for group in cluster.groups]
            raise InstanceGroupNotFoundError(
                f"Instance group {name} is not in {cluster.name}; its groups are: {', '.join(names) or 'none'}.",
                {"instanceGroups": names},
            )
        return group

    def _refuse_if_in_use(self, record: ClusterRecord, name: str) -> None:
        eks = self._eks(record.region).find_cluster(record.eksClusterName)
        if eks is None:
            return
        nodes = {
            node.name for node in self._kubernetes.nodes(eks, record.region) if node.labels.get(GROUP_LABEL) == name
        }
        pods = self._kubernetes.workload_pods(eks, record.region, nodes) if nodes else []
        if pods:
            shown = ", ".join(pods[:5]) + (f" and {len(pods) - 5} more" if len(pods) > 5 else "")
            raise ClusterNotReadyError(
                f"Instance group {name} runs workload pods ({shown}); deleting it would kill running jobs. Stop those "
                "jobs or let them finish, then delete the group.",
                {"pods": pods},
            )


class InstanceGroupSteps:
    """Workflow steps for instance groups; each observes live state first so that retry and resume converge."""

    def __init__(self, network: NetworkGateway, iam: IamGateway, hyperpod: HyperPodGateway, poll: PollSettings) -> None:
        self._network = network
        self._iam = iam
        self._hyperpod = hyperpod
        self._poll = poll

    def add_instance_group(self, ctx: AddInstanceGroupInput) -> dict[str, str]:
        plan = ctx.hyperpod
        cluster = self._cluster(ctx)
        if cluster.group(plan.instanceGroupName) is not None:
            return {"instanceGroup": plan.instanceGroupName, "action": "found"}
        role = self._iam.find_role(hyperpod_execution_role_name(ctx.clusterTag))
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
        view = group_view(group, cluster)
        wanted = change.model_dump(exclude_none=True, exclude={"instanceGroupName"})
        live = changeable_fields(view)
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
        attempts = ctx.attempt()
        if group is None:
            raise ResourceNotReadyError(f"Instance group {name} is not in the cluster yet.")
        status = group.get("Status", "")
        if status in FAILED_GROUP_STATES:
            raise DependencyFailedError(
                f"Instance group {name} is {status}. Check capacity, quota and the lifecycle script (GET "
                f"/clusters/{ctx.clusterTag}/nodes), fix the cause, then resume."
            )
        done = (
            status == "InService"
            and group.get("CurrentCount", 0) == group.get("TargetCount", 0)
            and not (group.get("ActiveOperations") or {}).get("Scaling")
        )
        if not done and attempts >= self._poll.max_attempts:
            raise WaitTimeoutError(
                f"Instance group {name} has {group.get('CurrentCount', 0)} of {group.get('TargetCount', 0)} "
                f"instances after {attempts} checks."
            )
        return PollState(done=done, attempts=attempts, waitSeconds=self._poll.wait_seconds, status=status)

    def delete_instance_group(self, ctx: DeleteInstanceGroupInput) -> dict[str, str]:
        name = ctx.instance_group_name
        cluster = self._cluster(ctx)
        group = cluster.group(name)
        if group is None:
            return {"instanceGroup": name, "action": "absent"}
        if group.get("Status") != "Deleting":
            self._hyperpod.delete_group(cluster.name, name)
        return {"instanceGroup": name, "action": "deleting"}

    def check_instance_group_deleted(self, ctx: DeleteInstanceGroupInput) -> PollState:
        name = ctx.instance_group_name
        group = self._cluster(ctx).group(name)
        attempts = ctx.attempt()
        if group is not None and attempts >= self._poll.max_attempts:
            raise WaitTimeoutError(f"Instance group {name} is still {group.get('Status')} after {attempts} checks.")
        return PollState(
            done=group is None,
            attempts=attempts,
            waitSeconds=self._poll.wait_seconds,
            status="DELETED" if group is None else group.get("Status"),
        )

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
        groups = [cluster.group(name) or {} for name in plan.instanceGroups]
        if any(group.get("SoftwareUpdateStatus") in SOFTWARE_RUNNING for group in groups):
            return {"action": "in progress"}
        wanted_image = plan.imageId
        if all(
            group.get("ImageVersionStatus") == "UpToDate"
            and (wanted_image is None or group.get("DesiredImageId") == wanted_image)
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
        attempts = ctx.attempt()
        statuses = {name: (cluster.group(name) or {}).get("SoftwareUpdateStatus") for name in plan.instanceGroups}
        failed = [name for name, status in statuses.items() if status in SOFTWARE_FAILED]
        if failed:
            raise DependencyFailedError(
                f"The software update failed on {', '.join(failed)} ({', '.join(str(statuses[n]) for n in failed)}); "
                "HyperPod rolled back what it could. Check the cluster events, then start a new update."
            )
        done = cluster.status == "InService" and not any(status in SOFTWARE_RUNNING for status in statuses.values())
        if not done and attempts >= self._poll.max_attempts:
            raise WaitTimeoutError(f"The software update is still running after {attempts} checks.")
        return PollState(done=done, attempts=attempts, waitSeconds=self._poll.wait_seconds, status=cluster.status)

    def _cluster(self, ctx: WorkflowState) -> HyperPodCluster:
        name = ctx.hyperPodClusterName
        cluster = self._hyperpod.find_cluster(name)
        if cluster is None or not is_owned(cluster.tags, ctx.clusterTag):
            raise ResourceNotReadyError(f"HyperPod cluster {name} is missing.")
        return cluster


def group_view(group: dict[str, Any], cluster: HyperPodCluster) -> InstanceGroupView:
    """One group's ClusterInstanceGroupDetails as the API shows it."""
    kubernetes = group.get("KubernetesConfig") or {}
    ebs = next(
        (
            config["EbsVolumeConfig"].get("VolumeSizeInGB")
            for config in group.get("InstanceStorageConfigs") or []
            if "EbsVolumeConfig" in config
        ),
        None,
    )
    return InstanceGroupView(
        instanceGroupName=group["InstanceGroupName"],
        instanceType=group.get("InstanceType"),
        status=group.get("Status", "Unknown"),
        currentCount=group.get("CurrentCount", 0),
        targetCount=group.get("TargetCount", 0),
        minInstanceCount=group.get("MinCount"),
        capacityType=capacity_type(group),
        trainingPlanArn=group.get("TrainingPlanArn"),
        networkInterface=(group.get("NetworkInterface") or {}).get("InterfaceType"),
        subnetIds=(group.get("OverrideVpcConfig") or {}).get("Subnets") or list(cluster.subnet_ids),
        deepHealthChecks=bool(group.get("OnStartDeepHealthChecks")),
        ebsVolumeSizeGb=ebs,
        threadsPerCore=group.get("ThreadsPerCore"),
        labels=kubernetes.get("DesiredLabels") or {},
        taints=[
            TaintModel(key=taint["Key"], value=taint.get("Value"), effect=taint["Effect"])
            for taint in kubernetes.get("DesiredTaints") or []
        ],
        imageReleaseVersion=group.get("CurrentImageReleaseVersion"),
        softwareUpdateStatus=group.get("SoftwareUpdateStatus"),
        scalingOperations=(group.get("ActiveOperations") or {}).get("Scaling", 0),
    )


def changeable_fields(view: InstanceGroupView) -> dict[str, Any]:
    """A group's live values under the names UpdateInstanceGroupRequest uses, for the explicit diff."""
    return {
        "instanceCount": view.targetCount,
        "minInstanceCount": view.minInstanceCount,
        "labels": view.labels,
        "taints": [taint.model_dump() for taint in view.taints],
        "deepHealthChecks": view.deepHealthChecks,
        "instanceType": view.instanceType,
        "networkInterface": view.networkInterface,
    }


def refuse_adopted_hyperpod(record: ClusterRecord) -> None:
    """An imported HyperPod cluster stays its owner's: the control plane reads it but changes only what it made."""
    if StageName.HYPERPOD.value in record.adopted:
        raise ForeignResourceError(
            f"HyperPod cluster {record.hyperPodClusterName} was adopted by import, not created by InstantStart, so "
            "the control plane does not change its instance groups or nodes. Make the change with SageMaker "
            "directly; the views here show the result.",
            {"adopted": record.adopted},
        )


def capacity_type(group: dict[str, Any]) -> CapacityType:
    """on-demand, spot or training-plan, from a group's ClusterInstanceGroupDetails."""
    if group.get("TrainingPlanArn"):
        return "training-plan"
    return "spot" if "Spot" in (group.get("CapacityRequirements") or {}) else "on-demand"
