"""The stage requests on a registered cluster: stage 3 (dependencies), stage 4 (HyperPod) and stage 5 (storage).

Each reads the record once, checks that the stage it builds on is done, and either plans (no side effect)
or starts the stage's workflow; `recheck` runs the same checks before one of their operations is resumed. The rules
and plans are the stage contexts' own (`core.dependencies`, `core.hyperpod_planning`, `core.storage`); this module
only composes them with the registry and operations.
"""

from __future__ import annotations

from collections.abc import Callable

from controlplane.config import DependencyPins
from controlplane.core.auth import Actor
from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.dependencies.plan import dependency_actions, dependency_images
from controlplane.core.hyperpod_planning import HyperPodPlanner, hyperpod_actions
from controlplane.core.naming import Deployment, hyperpod_cluster_of
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.account import AccountGateway
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.core.preflight.rules import refuse_failures
from controlplane.core.preflight.service import PreflightService
from controlplane.core.registry import ClusterService
from controlplane.core.storage.namespace import namespace_action, namespace_to_create
from controlplane.core.storage.plan import (
    check_storage_request,
    storage_actions,
    storage_features,
    storage_plan,
    storage_stages,
)
from controlplane.models.clusters import ClusterRecord, Plan, StageName
from controlplane.models.hyperpod import CreateHyperPodRequest, HyperPodPlan
from controlplane.models.operations import Operation, OperationKind
from controlplane.models.preflight import PreflightCheck
from controlplane.models.storage import ConfigureStorageRequest, StoragePlan
from controlplane.models.workflow import ConfigureStorageInput, CreateHyperPodClusterInput, parse_input


class StageRequestService:
    def __init__(
        self,
        clusters: ClusterService,
        operations: OperationService,
        account: AccountGateway,
        hyperpod_planner: HyperPodPlanner,
        preflight: PreflightService,
        pins: DependencyPins,
        deployment: Deployment,
        hyperpod: Callable[[str], HyperPodGateway],
        eks: Callable[[str], EksGateway],
        namespaces: KubernetesGateway,
    ) -> None:
        self._clusters = clusters
        self._operations = operations
        self._account = account
        self._hyperpod_planner = hyperpod_planner
        self._preflight = preflight
        self._pins = pins
        self._deployment = deployment
        self._hyperpod_gateway = hyperpod
        self._eks = eks
        self._namespaces = namespaces

    # --- stage 3 -----------------------------------------------------------------------------

    def plan_dependencies(self, cluster_tag: str) -> Plan:
        record = self._clusters.ready_for(cluster_tag, StageName.DEPENDENCIES, needs=StageName.EKS)
        return Plan(actions=dependency_actions(self._deployment, record, self._pins))

    def configure_dependencies(self, cluster_tag: str, actor: Actor) -> Operation:
        record = self._dependencies_ready(cluster_tag)
        return self._operations.start(record, actor, OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES)

    # --- stage 4 -----------------------------------------------------------------------------

    def plan_hyperpod(self, cluster_tag: str, request: CreateHyperPodRequest) -> Plan:
        """The first instance group validated against live facts, what stage 4 would create, and its pre-flight."""
        record, resolved = self._hyperpod(cluster_tag, request)
        name = hyperpod_cluster_of(cluster_tag, record.hyperPodClusterName)
        return Plan(
            actions=hyperpod_actions(self._deployment, cluster_tag, resolved, name),
            checks=self._group_checks(record, resolved),
        )

    def create_hyperpod(self, cluster_tag: str, request: CreateHyperPodRequest, actor: Actor) -> Operation:
        record, resolved = self._hyperpod(cluster_tag, request)
        refuse_failures(self._group_checks(record, resolved))
        return self._operations.start(record, actor, OperationKind.CREATE_HYPERPOD_CLUSTER, hyperpod=resolved)

    # --- stage 5 -----------------------------------------------------------------------------

    def plan_storage(self, cluster_tag: str, request: ConfigureStorageRequest) -> Plan:
        record, plan = self._storage(cluster_tag, request)
        actions = storage_actions(self._deployment, cluster_tag, plan)
        if self._namespace_to_create(record, plan.namespace):
            actions.insert(0, namespace_action(plan.namespace))
        return Plan(actions=actions)

    def configure_storage(self, cluster_tag: str, request: ConfigureStorageRequest, actor: Actor) -> Operation:
        record, plan = self._storage(cluster_tag, request)
        self._namespace_to_create(record, plan.namespace)
        return self._operations.start(
            record,
            actor,
            OperationKind.CONFIGURE_STORAGE,
            stages=storage_stages(plan),
            storage=plan,
            features=storage_features(plan),
        )

    # --- resume ------------------------------------------------------------------------------

    resumes = frozenset(
        {
            OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES,
            OperationKind.CREATE_HYPERPOD_CLUSTER,
            OperationKind.CONFIGURE_STORAGE,
        }
    )

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        """Before a resume, the checks of the stage's request against the cluster as it is now: the stage it builds
        on is done and the cluster ACTIVE, and stage 4's pre-flight while its HyperPod cluster does not exist yet."""
        tag = record.clusterTag
        payload = parse_input(operation.input)
        checks: list[PreflightCheck] = []
        if isinstance(payload, ConfigureStorageInput):
            ready = self._storage_ready(tag, fsx=payload.storage.fsx is not None)
            self._namespace_to_create(ready, payload.storage.namespace)
        elif isinstance(payload, CreateHyperPodClusterInput):
            record = self._clusters.ready_for(tag, StageName.HYPERPOD, needs=StageName.DEPENDENCIES)
            if self._hyperpod_gateway(record.region).find_cluster(payload.hyperPodClusterName) is None:
                checks = self._group_checks(record, payload.hyperpod)
            refuse_failures(checks)
        else:
            self._dependencies_ready(tag)
        return Plan(actions=[], checks=checks)

    # --- internals ---------------------------------------------------------------------------

    def _dependencies_ready(self, cluster_tag: str) -> ClusterRecord:
        record = self._clusters.ready_for(cluster_tag, StageName.DEPENDENCIES, needs=StageName.EKS)
        dependency_images(self._pins, record.region)  # a Region without a registry for them is refused here
        return record

    def _hyperpod(self, cluster_tag: str, request: CreateHyperPodRequest) -> tuple[ClusterRecord, HyperPodPlan]:
        record = self._clusters.ready_for(cluster_tag, StageName.HYPERPOD, needs=StageName.DEPENDENCIES)
        return record, self._hyperpod_planner.first_group(record, request)

    def _group_checks(self, record: ClusterRecord, resolved: HyperPodPlan) -> list[PreflightCheck]:
        growth = self._preflight.new_group(record.region, record.clusterTag, resolved)
        return self._preflight.group_checks(record.region, growth)

    def _storage(self, cluster_tag: str, request: ConfigureStorageRequest) -> tuple[ClusterRecord, StoragePlan]:
        record = self._storage_ready(cluster_tag, fsx=request.fsx is not None)
        account = record.accountId or self._account.account_id()
        return record, storage_plan(cluster_tag, record.region, account, request)

    def _namespace_to_create(self, record: ClusterRecord, namespace: str) -> bool:
        """Whether stage 5 creates the claims' namespace; refused (409) when it exists and is not the control
        plane's. Read as the view role, which may read namespaces."""
        cluster = reachable_control_plane(self._eks(record.region), record.eksClusterName, record.clusterTag)
        found = self._namespaces.get(cluster, record.region, "v1", "Namespace", namespace)
        return namespace_to_create(namespace, found) is not None

    def _storage_ready(self, cluster_tag: str, fsx: bool) -> ClusterRecord:
        record = self._clusters.ready_for(cluster_tag, StageName.STORAGE, needs=StageName.DEPENDENCIES)
        check_storage_request(record, fsx)
        return record
