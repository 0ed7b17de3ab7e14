"""Instance groups of a running HyperPod cluster, the API side: list, add, update (explicit diff), delete and
software updates. Each request is checked against the live cluster (`group_rules`) before a workflow starts, and
again before one of its operations is resumed (`recheck`); the workflow's steps are `group_steps`. What terminates or
restarts nodes (a delete, a scale-down below the current count, a software update) is planned first (`group_plans`)
and starts only with the token bound to that plan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations, fingerprint
from controlplane.core.hyperpod.conversions import group_view
from controlplane.core.hyperpod.group_plans import delete_group_actions, scale_down_actions, software_plan
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
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import ClusterRecord, Plan, PlannedAction, StageName
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.instance_groups import (
    AddInstanceGroupRequest,
    FieldOutcome,
    InstanceGroupChange,
    InstanceGroupList,
    SoftwareUpdateRequest,
    UpdateInstanceGroupRequest,
    UpdateResult,
)
from controlplane.models.operations import Operation, OperationKind, OperationView
from controlplane.models.preflight import PreflightCheck
from controlplane.models.status import GROUP_LABEL
from controlplane.models.workflow import (
    AddInstanceGroupInput,
    DeleteInstanceGroupInput,
    UpdateClusterSoftwareInput,
    UpdateInstanceGroupInput,
    parse_input,
)

Checks = list[PreflightCheck]
DELETE_GROUP_ACTION = "delete-instance-group"
SCALE_DOWN_ACTION = "scale-down-instance-group"
SOFTWARE_UPDATE_ACTION = "update-software"
CONFIRM = "Ask the person to confirm, then repeat the request with confirmationToken."
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

    def plan_update(
        self, cluster_tag: str, name: str, request: UpdateInstanceGroupRequest, actor: Actor
    ) -> UpdateResult:
        """Per sent field: unchanged or updated, refused before anything happens if the change is not allowed; a
        scale-down below the current count also gets the plan of what it terminates and a confirmation token, a
        scale-up the pre-flight of the instances it adds."""
        record, cluster = self._live(cluster_tag)
        group = require_group(cluster, name)
        changes = explicit_diff(group, request.model_dump(exclude_unset=True))
        scale_down = scale_down_actions(group, request.instanceCount)
        if scale_down:
            return self._confirmation_asked(
                changes, self._scale_down_plan(cluster_tag, group, request, scale_down, actor)
            )
        checks = self._growth_checks(record, group, request.instanceCount)
        return UpdateResult(changes=changes, dryRun=True, checks=checks, message="Dry run: nothing was changed.")

    def update(
        self, cluster_tag: str, name: str, request: UpdateInstanceGroupRequest, token: str | None, actor: Actor
    ) -> UpdateResult:
        """The explicit diff, and a workflow for the changed fields only; nothing starts when none changed. A
        scale-down below the current count starts only with the token of its plan (without one, the plan). A
        scale-up is refused first when its pre-flight fails."""
        record, cluster = self._live(cluster_tag)
        group = require_group(cluster, name)
        changes = explicit_diff(group, request.model_dump(exclude_unset=True))
        changed = {field for field, outcome in changes.items() if outcome != "unchanged"}
        if not changed:
            return UpdateResult(changes=changes, message="Every field already has the requested value.")
        refuse_failures(self._growth_checks(record, group, request.instanceCount))
        change = InstanceGroupChange(instanceGroupName=name, **{field: getattr(request, field) for field in changed})
        scale_down = scale_down_actions(group, request.instanceCount)
        if scale_down and not token:
            return self._confirmation_asked(
                changes, self._scale_down_plan(cluster_tag, group, request, scale_down, actor)
            )
        confirmed = (
            self._confirmations.redeeming(
                token or "",
                actor,
                SCALE_DOWN_ACTION,
                f"{cluster_tag}/{name}",
                f"Send the same PATCH /clusters/{cluster_tag}/instance-groups/{name} without a token",
                fingerprint([request, *scale_down]),
            )
            if scale_down
            else nullcontext()
        )
        with confirmed:
            operation = self._operations.start(
                record, actor, OperationKind.UPDATE_INSTANCE_GROUP, destructive=bool(scale_down), instanceGroup=change
            )
        return UpdateResult(
            changes=changes,
            operationId=operation.operationId,
            operation=OperationView.of(operation),
            message="Update started; call operation_wait with operationId until it is terminal.",
        )

    def _scale_down_plan(
        self,
        cluster_tag: str,
        group: InstanceGroup,
        request: UpdateInstanceGroupRequest,
        actions: Sequence[PlannedAction],
        actor: Actor,
    ) -> Plan:
        token, expires_at = self._confirmations.issue(
            actor, SCALE_DOWN_ACTION, f"{cluster_tag}/{group.name}", fingerprint([request, *actions])
        )
        return Plan(
            actions=list(actions),
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Scaling instance group {group.name} from {group.current_count} to {request.instanceCount} "
            f"terminates nodes. {CONFIRM}",
        )

    @staticmethod
    def _confirmation_asked(changes: dict[str, FieldOutcome], plan: Plan) -> UpdateResult:
        return UpdateResult(
            changes=changes,
            dryRun=True,
            actions=plan.actions,
            confirmationToken=plan.confirmationToken,
            expiresAt=plan.expiresAt,
            message=plan.message or CONFIRM,
        )

    def plan_delete(self, cluster_tag: str, name: str, actor: Actor) -> Plan:
        """What deleting the group terminates, with a token bound to exactly that (its count and type)."""
        record, cluster = self._live(cluster_tag)
        actions = delete_group_actions(require_group(cluster, name))
        self._refuse_if_in_use(record, name)
        token, expires_at = self._confirmations.issue(
            actor, DELETE_GROUP_ACTION, f"{cluster_tag}/{name}", fingerprint(actions)
        )
        return Plan(
            actions=actions,
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Deleting instance group {name} terminates its nodes. Ask the person to confirm, then repeat the "
            "request with confirmationToken.",
        )

    def delete(self, cluster_tag: str, name: str, token: str, actor: Actor) -> Operation:
        record, cluster = self._live(cluster_tag)
        with self._confirmations.redeeming(
            token,
            actor,
            DELETE_GROUP_ACTION,
            f"{cluster_tag}/{name}",
            f"Call DELETE /clusters/{cluster_tag}/instance-groups/{name} without a token",
            fingerprint(delete_group_actions(require_group(cluster, name))),
        ):
            self._refuse_if_in_use(record, name)
            return self._operations.start(
                record,
                actor,
                OperationKind.DELETE_INSTANCE_GROUP,
                destructive=True,
                instanceGroup=InstanceGroupChange(instanceGroupName=name),
            )

    def plan_software_update(self, cluster_tag: str, request: SoftwareUpdateRequest, actor: Actor) -> Plan:
        """The groups to patch with their current release, and a confirmation token (nodes restart)."""
        _, cluster = self._live(cluster_tag)
        _, plan = software_plan(cluster, request)
        token, expires_at = self._confirmations.issue(
            actor, SOFTWARE_UPDATE_ACTION, cluster_tag, fingerprint([request, *plan.actions])
        )
        return plan.model_copy(
            update={
                "confirmationToken": token,
                "expiresAt": expires_at,
                "message": f"The software update restarts the nodes of {', '.join(a.name for a in plan.actions)}, a "
                f"batch at a time. {CONFIRM}",
            }
        )

    def update_software(self, cluster_tag: str, request: SoftwareUpdateRequest, token: str, actor: Actor) -> Operation:
        record, cluster = self._live(cluster_tag)
        update, plan = software_plan(cluster, request)
        with self._confirmations.redeeming(
            token,
            actor,
            SOFTWARE_UPDATE_ACTION,
            cluster_tag,
            f"Call POST /clusters/{cluster_tag}/software-update without a token",
            fingerprint([request, *plan.actions]),
        ):
            return self._operations.start(
                record, actor, OperationKind.UPDATE_CLUSTER_SOFTWARE, destructive=True, softwareUpdate=update
            )

    # --- resume ------------------------------------------------------------------------------

    resumes = frozenset(
        {
            OperationKind.ADD_INSTANCE_GROUP,
            OperationKind.UPDATE_INSTANCE_GROUP,
            OperationKind.DELETE_INSTANCE_GROUP,
            OperationKind.UPDATE_CLUSTER_SOFTWARE,
        }
    )

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        """Before a resume, the checks of the group request against the live cluster, for what is still to do: an
        added group's pre-flight while it does not exist yet; an update's group, the pre-flight of what it still
        adds and the nodes a scale-down still terminates; a delete refused while the group runs workload pods; a
        software update's groups."""
        record, cluster = self._live(record.clusterTag)
        payload = parse_input(operation.input)
        actions: list[PlannedAction] = []
        checks: Checks = []
        if isinstance(payload, AddInstanceGroupInput) and cluster.group(payload.instance_group_name) is None:
            checks = self._new_group_checks(record, payload.hyperpod)
        elif isinstance(payload, UpdateInstanceGroupInput):
            group = require_group(cluster, payload.instance_group_name)
            checks = self._growth_checks(record, group, payload.instanceGroup.instanceCount)
            actions = scale_down_actions(group, payload.instanceGroup.instanceCount)
        elif isinstance(payload, DeleteInstanceGroupInput) and (doomed := cluster.group(payload.instance_group_name)):
            self._refuse_if_in_use(record, doomed.name)
            actions = delete_group_actions(doomed)
        elif isinstance(payload, UpdateClusterSoftwareInput):
            update = payload.softwareUpdate
            wanted = SoftwareUpdateRequest(
                instanceGroups=update.instanceGroups, imageId=update.imageId, rollingPolicy=update.rollingPolicy
            )
            actions = software_plan(cluster, wanted)[1].actions
        refuse_failures(checks)
        return Plan(actions=actions, checks=checks)

    def _resolve_new_group(
        self, record: ClusterRecord, cluster: HyperPodCluster, request: AddInstanceGroupRequest
    ) -> HyperPodPlan:
        refuse_existing_group(cluster, request.instanceGroupName)
        return self._planner.resolve_group(record.region, request)

    def _new_group_checks(self, record: ClusterRecord, resolved: HyperPodPlan) -> Checks:
        growth = self._preflight.new_group(record.region, record.clusterTag, resolved)
        return self._preflight.group_checks(record.region, growth)

    def _growth_checks(self, record: ClusterRecord, group: InstanceGroup, count: int | None) -> Checks:
        """The pre-flight of the instances a new target `count` adds to the group (None: the count is not changed)."""
        added = (count or 0) - group.target_count
        if count is None or added <= 0 or group.instance_type is None:
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
