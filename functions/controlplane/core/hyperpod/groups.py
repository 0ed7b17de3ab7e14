"""Instance groups of a running HyperPod cluster, the API side: list, add, update (explicit diff), delete (plan,
confirm) and software updates. Each request is checked against the live cluster (`group_rules`) before a workflow
starts; the workflow's steps are `group_steps`.
"""

from __future__ import annotations

from collections.abc import Callable

from controlplane.core.auth import Actor
from controlplane.core.clusters.registry import ClusterService
from controlplane.core.confirmations import Confirmations
from controlplane.core.hyperpod.conversions import group_view
from controlplane.core.hyperpod.group_rules import (
    explicit_diff,
    refuse_adopted_hyperpod,
    refuse_existing_group,
    require_group,
)
from controlplane.core.hyperpod_planning import HyperPodPlanner
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.operations.service import OperationService
from controlplane.core.paging import page_of
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.hyperpod import HyperPodCluster, HyperPodGateway, InstanceGroup
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.core.preflight.rules import refuse_failures
from controlplane.core.preflight.service import Growth, PreflightService
from controlplane.models.clusters import ClusterRecord, Plan, PlannedAction, StageName
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.instance_groups import (
    AddInstanceGroupRequest,
    FieldOutcome,
    InstanceGroupChange,
    InstanceGroupList,
    SoftwareUpdatePlan,
    SoftwareUpdateRequest,
    UpdateInstanceGroupRequest,
)
from controlplane.models.operations import Operation, OperationKind
from controlplane.models.preflight import PreflightCheck
from controlplane.models.status import GROUP_LABEL

Checks = list[PreflightCheck]
DELETE_GROUP_ACTION = "delete-instance-group"
# Workload pods named in the refusal's message, and at most in its details (podsFound counts them all).
SHOWN_PODS = 5
MAX_DETAILED_PODS = 50


class InstanceGroupService:
    """What callers ask of instance groups; each request reads the registry and the live cluster once."""

    def __init__(
        self,
        clusters: ClusterService,
        operations: OperationService,
        planner: HyperPodPlanner,
        preflight: PreflightService,
        confirmations: Confirmations,
        hyperpod: Callable[[str], HyperPodGateway],
        eks: Callable[[str], EksGateway],
        kubernetes: KubernetesGateway,
    ) -> None:
        self._clusters = clusters
        self._operations = operations
        self._planner = planner
        self._preflight = preflight
        self._confirmations = confirmations
        self._hyperpod = hyperpod
        self._eks = eks
        self._kubernetes = kubernetes

    def list(self, cluster_tag: str, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None) -> InstanceGroupList:
        """A page of the groups in HyperPod's order (DescribeCluster returns them all; the page bounds the answer)."""
        _, cluster = self._live(cluster_tag, changing=False)
        page = page_of(cluster.groups, limit, token)
        return InstanceGroupList(
            clusterTag=cluster_tag,
            hyperPodClusterName=cluster.name,
            hyperPodStatus=cluster.status,
            instanceGroups=[group_view(group, cluster) for group in page.items],
            continue_=page.next_token,
        )

    def plan_add(self, cluster_tag: str, request: AddInstanceGroupRequest) -> Plan:
        record, cluster = self._live(cluster_tag)
        resolved = self._resolve_new_group(record, cluster, request)
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
        return Plan(actions=actions, checks=self._new_group_checks(record, resolved))

    def add(self, cluster_tag: str, request: AddInstanceGroupRequest, actor: Actor) -> Operation:
        record, cluster = self._live(cluster_tag)
        resolved = self._resolve_new_group(record, cluster, request)
        refuse_failures(self._new_group_checks(record, resolved))
        return self._operations.start(record, actor, OperationKind.ADD_INSTANCE_GROUP, hyperpod=resolved)

    def diff(self, cluster_tag: str, name: str, request: UpdateInstanceGroupRequest) -> dict[str, FieldOutcome]:
        """Per sent field: unchanged or updated, refused before anything happens if the change is not allowed."""
        _, cluster = self._live(cluster_tag)
        return explicit_diff(require_group(cluster, name), request.model_dump(exclude_unset=True))

    def growth_checks(self, cluster_tag: str, name: str, request: UpdateInstanceGroupRequest) -> Checks:
        """The pre-flight of a scale-up (quota, addresses, capacity for the added instances); none otherwise."""
        record, cluster = self._live(cluster_tag)
        return self._growth_checks(record, require_group(cluster, name), request)

    def update(
        self, cluster_tag: str, name: str, request: UpdateInstanceGroupRequest, actor: Actor
    ) -> tuple[dict[str, FieldOutcome], Operation | None]:
        """The explicit diff, and a workflow for the changed fields only; nothing starts when none changed. A
        scale-up is refused first when its pre-flight fails."""
        record, cluster = self._live(cluster_tag)
        group = require_group(cluster, name)
        changes = explicit_diff(group, request.model_dump(exclude_unset=True))
        changed = {field for field, outcome in changes.items() if outcome != "unchanged"}
        if not changed:
            return changes, None
        refuse_failures(self._growth_checks(record, group, request))
        change = InstanceGroupChange(instanceGroupName=name, **{field: getattr(request, field) for field in changed})
        operation = self._operations.start(record, actor, OperationKind.UPDATE_INSTANCE_GROUP, instanceGroup=change)
        return changes, operation

    def plan_delete(self, cluster_tag: str, name: str, actor: Actor) -> Plan:
        record, cluster = self._live(cluster_tag)
        group = require_group(cluster, name)
        self._refuse_if_in_use(record, name)
        token, expires_at = self._confirmations.issue(actor, DELETE_GROUP_ACTION, f"{cluster_tag}/{name}")
        return Plan(
            actions=[
                PlannedAction(
                    action="delete",
                    resource="HyperPod instance group",
                    name=name,
                    detail=f"{group.current_count} x {group.instance_type}: its nodes and their volumes are terminated",
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
        require_group(cluster, name)
        with self._confirmations.redeeming(
            token,
            actor,
            DELETE_GROUP_ACTION,
            f"{cluster_tag}/{name}",
            f"Call DELETE /clusters/{cluster_tag}/instance-groups/{name} without a token",
        ):
            self._refuse_if_in_use(record, name)
            return self._operations.start(
                record,
                actor,
                OperationKind.DELETE_INSTANCE_GROUP,
                instanceGroup=InstanceGroupChange(instanceGroupName=name),
            )

    def plan_software_update(self, cluster_tag: str, request: SoftwareUpdateRequest) -> Plan:
        _, cluster = self._live(cluster_tag)
        return self._software_plan(cluster, request)[1]

    def update_software(self, cluster_tag: str, request: SoftwareUpdateRequest, actor: Actor) -> Operation:
        record, cluster = self._live(cluster_tag)
        plan, _ = self._software_plan(cluster, request)
        return self._operations.start(record, actor, OperationKind.UPDATE_CLUSTER_SOFTWARE, softwareUpdate=plan)

    def _resolve_new_group(
        self, record: ClusterRecord, cluster: HyperPodCluster, request: AddInstanceGroupRequest
    ) -> HyperPodPlan:
        refuse_existing_group(cluster, request.instanceGroupName)
        return self._planner.resolve_group(record.region, request)

    def _new_group_checks(self, record: ClusterRecord, resolved: HyperPodPlan) -> Checks:
        growth = self._preflight.new_group(record.region, record.clusterTag, resolved)
        return self._preflight.group_checks(record.region, growth)

    def _growth_checks(
        self, record: ClusterRecord, group: InstanceGroup, request: UpdateInstanceGroupRequest
    ) -> Checks:
        added = (request.instanceCount or 0) - group.target_count
        if request.instanceCount is None or added <= 0 or group.instance_type is None:
            return []
        growth = Growth(
            instance_type=group.instance_type,
            instances=added,
            subnet_id=group.subnet_ids[0] if group.subnet_ids else None,
            network_interface=group.network_interface,
            capacity_type=group.capacity_type,
            training_plan_arn=group.training_plan_arn,
        )
        return self._preflight.group_checks(record.region, growth)

    @staticmethod
    def _software_plan(cluster: HyperPodCluster, request: SoftwareUpdateRequest) -> tuple[SoftwareUpdatePlan, Plan]:
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

    def _refuse_if_in_use(self, record: ClusterRecord, name: str) -> None:
        """Refuse while the group's nodes run workload pods; the pod read stops at the first ones it finds."""
        eks = self._eks(record.region).find_cluster(record.eksClusterName)
        if eks is None:
            return
        nodes = {node.name for node in self._kubernetes.nodes(eks, record.region, {GROUP_LABEL: name})}
        pods = self._kubernetes.workload_pods(eks, record.region, nodes) if nodes else None
        if pods is None or not pods.names:
            return
        found = list(pods.names)
        more = len(found) - SHOWN_PODS
        shown = ", ".join(found[:SHOWN_PODS]) + (f" and {more} more" if more > 0 else "")
        if not pods.complete:
            shown += ", maybe others"
        raise ClusterNotReadyError(
            f"Instance group {name} runs workload pods ({shown}); deleting it would kill running jobs. Stop those "
            "jobs or let them finish, then delete the group.",
            {"pods": found[:MAX_DETAILED_PODS], "podsFound": len(found), "allPodsRead": pods.complete},
        )
