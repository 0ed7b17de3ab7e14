"""A cluster's lifecycle as callers see it: it enters the registry (stage 1, the whole pipeline, or import) and
leaves it (delete: plan, then confirm). Each request is validated against live state before anything is
registered or started; its plan is computed from the same validation, with no side effect.

A new cluster's VPC CIDR is reserved in the registry when the request is accepted (a conditional write, so two
concurrent creates never pick the same range) and freed when the cluster is deleted or its start fails. Each new
record gets a fresh incarnation. A delete token confirms the plan it came with: it is bound to the plan's
fingerprint (the cluster's incarnation and state, its roles and its work included), so a cluster that changed since
needs a fresh plan. `recheck` runs these requests' checks again before one of their operations is resumed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controlplane.config import DependencyPins
from controlplane.core.auth import Actor
from controlplane.core.clusters.deletion import DeletionPlanner
from controlplane.core.clusters.import_plan import (
    check_eks_importable,
    check_hyperpod_importable,
    check_unregistered,
    endpoint_check,
    import_actions,
)
from controlplane.core.confirmations import Confirmations, fingerprint
from controlplane.core.dependencies.plan import dependency_images
from controlplane.core.hyperpod_planning import HyperPodPlanner, hyperpod_actions
from controlplane.core.naming import CLUSTER_TAG_KEY, Deployment, eks_cluster_name, hyperpod_cluster_name
from controlplane.core.network.plan import plan_network, stage_one_actions
from controlplane.core.operations.incarnation import new_incarnation
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.account import AccountGateway
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodCluster, HyperPodGateway
from controlplane.core.ports.persistence import Clock, ClusterRegistry
from controlplane.core.preflight.rules import refuse_failures
from controlplane.core.preflight.service import PreflightService
from controlplane.core.registry import ClusterService
from controlplane.core.storage.plan import storage_actions, storage_features, storage_plan
from controlplane.models.clusters import (
    DEFAULT_KUBERNETES_VERSION,
    ClusterRecord,
    ClusterStatus,
    CreateEksClusterRequest,
    ImportClusterRequest,
    NetworkPlan,
    Plan,
    PlannedAction,
)
from controlplane.models.errors import CidrConflictError, ClusterExistsError, UnknownRegionError
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.operations import Operation, OperationKind
from controlplane.models.pipeline import CreateClusterRequest
from controlplane.models.preflight import PreflightCheck
from controlplane.models.storage import StoragePlan
from controlplane.models.workflow import CreateClusterInput, EksStageInput, parse_input

DELETE_ACTION = "delete-cluster"
# Each failed reservation means a concurrent create took that CIDR, so this bounds the creates racing at once.
CIDR_RESERVATION_ATTEMPTS = 20


class ClusterLifecycleService:
    def __init__(
        self,
        clusters: ClusterService,
        registry: ClusterRegistry,
        account: AccountGateway,
        operations: OperationService,
        confirmations: Confirmations,
        hyperpod_planner: HyperPodPlanner,
        preflight: PreflightService,
        clock: Clock,
        eks: Callable[[str], EksGateway],
        hyperpod: Callable[[str], HyperPodGateway],
        pins: DependencyPins,
        deployment: Deployment,
        deletion: DeletionPlanner,
    ) -> None:
        self._clusters = clusters
        self._registry = registry
        self._account = account
        self._operations = operations
        self._confirmations = confirmations
        self._hyperpod_planner = hyperpod_planner
        self._preflight = preflight
        self._clock = clock
        self._eks = eks
        self._hyperpod = hyperpod
        self._pins = pins
        self._deployment = deployment
        self._deletion = deletion

    # --- stage 1 -----------------------------------------------------------------------------

    def plan_create_eks(self, request: CreateEksClusterRequest) -> Plan:
        """What stage 1 would create, validated against live state, with its pre-flight checks; no side effect."""
        network = self._network(request)
        return Plan(
            actions=stage_one_actions(self._deployment, request.clusterTag, network, request.kubernetesVersion),
            checks=self._preflight.network_checks(request.region, network),
        )

    def create_eks(self, request: CreateEksClusterRequest, actor: Actor) -> Operation:
        network = self._network(request)
        refuse_failures(self._preflight.network_checks(request.region, network))
        return self._register_new(
            request,
            actor,
            network,
            OperationKind.CREATE_EKS_CLUSTER,
            kubernetesVersion=request.kubernetesVersion,
        )

    # --- every stage in one operation --------------------------------------------------------

    def plan_pipeline(self, request: CreateClusterRequest) -> Plan:
        """Every stage's input validated up front (nothing is created), and what the pipeline would do."""
        network, hyperpod, storage = self._pipeline(request)
        tag = request.clusterTag
        return Plan(
            actions=[
                *stage_one_actions(self._deployment, tag, network, request.eks.kubernetesVersion),
                PlannedAction(action="create", resource="EKS add-ons and HyperPod dependencies", name="stage 3"),
                *hyperpod_actions(self._deployment, tag, hyperpod, hyperpod_cluster_name(tag)),
                *storage_actions(self._deployment, tag, storage),
            ],
            checks=self._pipeline_checks(request.region, network, hyperpod),
        )

    def create_cluster(self, request: CreateClusterRequest, actor: Actor) -> Operation:
        network, hyperpod, storage = self._pipeline(request)
        refuse_failures(self._pipeline_checks(request.region, network, hyperpod))
        return self._register_new(
            request.eks_request(),
            actor,
            network,
            OperationKind.CREATE_CLUSTER,
            kubernetesVersion=request.eks.kubernetesVersion,
            hyperpod=hyperpod,
            storage=storage,
            features=storage_features(storage),
        )

    # --- import ------------------------------------------------------------------------------

    def plan_import(self, request: ImportClusterRequest) -> Plan:
        """Check that the cluster can be adopted (nothing is changed) and say what import would do, with the
        pre-flight check of its endpoint."""
        cluster, hyperpod = self._importable(request)
        return Plan(
            actions=import_actions(request.clusterTag, cluster, hyperpod), checks=[endpoint_check(request, cluster)]
        )

    def import_cluster(self, request: ImportClusterRequest, actor: Actor) -> Operation:
        cluster, _ = self._importable(request)
        refuse_failures([endpoint_check(request, cluster)])
        now = self._clock.now()
        record = ClusterRecord(
            clusterTag=request.clusterTag,
            incarnation=new_incarnation(),
            region=request.region,
            status=ClusterStatus.IMPORTING,
            eksClusterName=cluster.name,
            kubernetesVersion=cluster.version or DEFAULT_KUBERNETES_VERSION,
            createdAt=now,
            updatedAt=now,
            createdBy=actor.principal,
            accountId=self._account.account_id(),
            imported=True,
            hyperPodClusterName=request.hyperPodClusterName,
        )
        return self._register_and_start(record, actor, OperationKind.IMPORT_CLUSTER)

    # --- delete (plan, then confirm) ---------------------------------------------------------

    def plan_delete(self, cluster_tag: str, actor: Actor) -> Plan:
        record = self._clusters.get(cluster_tag)
        actions = self._deletion.plan(record)
        token, expires_at = self._confirmations.issue(actor, DELETE_ACTION, cluster_tag, fingerprint(actions))
        return Plan(
            dryRun=True,
            actions=actions,
            confirmationToken=token,
            expiresAt=expires_at,
            message=(
                f"Deleting '{cluster_tag}' destroys what the actions to delete list, and leaves what they keep. Ask "
                "the person to confirm, then repeat the request with confirmationToken."
            ),
        )

    def delete(self, cluster_tag: str, token: str, actor: Actor) -> Operation:
        """Start the delete the token's plan confirmed; a refused attempt (busy cluster) leaves the token usable."""
        record = self._clusters.get(cluster_tag)
        with self._confirmations.redeeming(
            token,
            actor,
            DELETE_ACTION,
            cluster_tag,
            f"Call DELETE /clusters/{cluster_tag} without a token",
            fingerprint(self._deletion.plan(record)),
        ):
            operation = self._operations.start(record, actor, OperationKind.DELETE_EKS_CLUSTER, destructive=True)
        self._registry.save(
            record.model_copy(
                update={
                    "status": ClusterStatus.DELETING,
                    "activeOperationId": operation.operationId,
                    "updatedAt": self._clock.now(),
                }
            )
        )
        return operation

    # --- resume ------------------------------------------------------------------------------

    resumes = frozenset(
        {
            OperationKind.CREATE_EKS_CLUSTER,
            OperationKind.CREATE_CLUSTER,
            OperationKind.IMPORT_CLUSTER,
            OperationKind.DELETE_EKS_CLUSTER,
        }
    )

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        """Before a resume, the checks of the request that started the operation, against the cluster as it is now:
        a delete plans what it would destroy now; an import checks the adopted clusters again; a create runs the
        pre-flight of what it has not built yet (the network while its VPC is missing, the pipeline's first group
        while its HyperPod cluster is)."""
        if operation.kind == OperationKind.DELETE_EKS_CLUSTER:
            return Plan(actions=self._deletion.plan(record))
        if operation.kind == OperationKind.IMPORT_CLUSTER:
            request = ImportClusterRequest(
                clusterTag=record.clusterTag,
                region=record.region,
                eksClusterName=record.eksClusterName,
                hyperPodClusterName=record.hyperPodClusterName,
            )
            cluster, _ = self._adoptable(request)
            checks = [endpoint_check(request, cluster)]
        else:
            checks = self._unbuilt_checks(record, parse_input(operation.input))
        refuse_failures(checks)
        return Plan(actions=[], checks=checks)

    # --- internals ---------------------------------------------------------------------------

    def _unbuilt_checks(self, record: ClusterRecord, payload: object) -> list[PreflightCheck]:
        region, tag = record.region, record.clusterTag
        checks = []
        if isinstance(payload, EksStageInput):
            checks += self._preflight.unbuilt_network_checks(region, tag, payload.network)
        if (
            isinstance(payload, CreateClusterInput)
            and self._hyperpod(region).find_cluster(hyperpod_cluster_name(tag)) is None
        ):
            checks += self._preflight.group_checks(region, self._preflight.new_group(region, tag, payload.hyperpod))
        return checks

    def _network(self, request: CreateEksClusterRequest) -> NetworkPlan:
        """A supported Region, a free tag, and the network plan against the Region's VPCs."""
        self._require_new(
            request.clusterTag,
            request.region,
            "Use an AWS Region code where EKS is offered, such as us-west-2.",
            "pick another clusterTag or delete it first",
        )
        reserved = {
            f"the VPC reserved for cluster '{tag}'": cidr
            for cidr, tag in self._registry.reserved_cidrs(request.region).items()
        }
        return plan_network(
            {**self._account.vpc_cidrs(request.region), **reserved},
            request.vpcCidr,
            self._account.availability_zones(request.region),
        )

    def _register_new(
        self, request: CreateEksClusterRequest, actor: Actor, network: NetworkPlan, kind: OperationKind, **own: Any
    ) -> Operation:
        """Reserve the network's VPC CIDR (planning again if a concurrent create reserved it first), then register
        the cluster and start its workflow; the reservation is dropped if that fails."""
        for _ in range(CIDR_RESERVATION_ATTEMPTS):
            if self._registry.reserve_cidr(request.region, network.vpcCidr, request.clusterTag):
                break
            network = self._network(request)
        else:
            raise CidrConflictError(
                f"Concurrent creates kept reserving the VPC CIDR chosen for '{request.clusterTag}'; try again.",
                {"vpcCidr": network.vpcCidr},
            )
        try:
            return self._register_and_start(
                self._new_record(request, actor, network.vpcCidr), actor, kind, network=network, **own
            )
        except BaseException:
            self._registry.release_cidr(request.region, network.vpcCidr, request.clusterTag)
            raise

    def _pipeline(self, request: CreateClusterRequest) -> tuple[NetworkPlan, HyperPodPlan, StoragePlan]:
        network = self._network(request.eks_request())
        hyperpod = self._hyperpod_planner.resolve_group(request.region, request.hyperpod)
        storage = storage_plan(request.clusterTag, request.region, self._account.account_id(), request.storage)
        return network, hyperpod, storage

    def _pipeline_checks(self, region: str, network: NetworkPlan, hyperpod: HyperPodPlan) -> list[PreflightCheck]:
        """Stage 1's network and stage 4's group (in the compute subnet stage 4 creates)."""
        return [
            *self._preflight.network_checks(region, network),
            *self._preflight.group_checks(region, self._preflight.new_group(region, None, hyperpod)),
        ]

    def _importable(self, request: ImportClusterRequest) -> tuple[EksCluster, HyperPodCluster | None]:
        region = request.region
        self._require_new(
            request.clusterTag, region, "Use the AWS Region code of the existing cluster.", "pick another clusterTag"
        )
        cluster, hyperpod = self._adoptable(request)
        check_unregistered(
            cluster,
            cluster.tags.get(CLUSTER_TAG_KEY)
            or next(
                (r.clusterTag for r in self._registry.list() if (r.region, r.eksClusterName) == (region, cluster.name)),
                None,
            ),
        )
        return cluster, hyperpod

    def _adoptable(self, request: ImportClusterRequest) -> tuple[EksCluster, HyperPodCluster | None]:
        """The EKS cluster, and the HyperPod cluster if one is named, as import can adopt them."""
        cluster = check_eks_importable(request, self._eks(request.region).find_cluster(request.eksClusterName))
        if not request.hyperPodClusterName:
            return cluster, None
        found = self._hyperpod(request.region).find_cluster(request.hyperPodClusterName)
        return cluster, check_hyperpod_importable(request, cluster, found)

    def _require_new(self, cluster_tag: str, region: str, region_hint: str, tag_hint: str) -> None:
        """A Region AWS offers whose registries serve every image a HyperPod cluster runs, and a free tag."""
        if region not in self._account.known_regions():
            raise UnknownRegionError(f"Unknown or unsupported region '{region}'. {region_hint}", {"region": region})
        dependency_images(self._pins, region)
        if self._registry.find(cluster_tag) is not None:
            raise ClusterExistsError(
                f"Cluster '{cluster_tag}' already exists; {tag_hint}.", {"clusterTag": cluster_tag}
            )

    def _new_record(self, request: CreateEksClusterRequest, actor: Actor, vpc_cidr: str) -> ClusterRecord:
        now = self._clock.now()
        return ClusterRecord(
            clusterTag=request.clusterTag,
            incarnation=new_incarnation(),
            region=request.region,
            status=ClusterStatus.CREATING,
            eksClusterName=eks_cluster_name(request.clusterTag),
            kubernetesVersion=request.kubernetesVersion,
            vpcCidr=vpc_cidr,
            createdAt=now,
            updatedAt=now,
            createdBy=actor.principal,
            accountId=self._account.account_id(),
        )

    def _register_and_start(self, record: ClusterRecord, actor: Actor, kind: OperationKind, **own: Any) -> Operation:
        """Register the cluster (the tag is taken from here on) and start the workflow that builds or adopts it."""
        self._registry.create(record)
        try:
            return self._operations.start(record, actor, kind, **own)
        except Exception:
            self._registry.delete(record.clusterTag)
            raise
