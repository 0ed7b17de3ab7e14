"""The cluster registry as callers and workflows see it: reads, stage 6 status, readiness for a stage, and the
registry following operations (a finished stage, a finished operation, which also releases the cluster's lock).

Every context that looks a cluster up imports this module; it imports no context that does (registering and
deleting a cluster is `core.clusters`').
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from controlplane.core.concurrency import each, together
from controlplane.core.dependencies.addons import Health, addon_health, schedulable
from controlplane.core.identity import EXECUTION_ROLE_POLICIES, INSTANCE_POLICY
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.operations.incarnation import require_current
from controlplane.core.paging import Page
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.kubernetes import KubernetesGateway, KubernetesNode
from controlplane.core.ports.persistence import Clock, ClusterRegistry, KeptBesideCluster
from controlplane.core.storage.plan import storage_facts
from controlplane.models.clusters import ClusterRecord, ClusterStatus, LastOperation, StageName
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.errors import ClusterNotFoundError, ClusterNotReadyError
from controlplane.models.operations import Operation, OperationKind, OperationStatus
from controlplane.models.status import (
    GPU_RESOURCE,
    GROUP_LABEL,
    HEALTH_LABEL,
    INSTANCE_TYPE_LABEL,
    ZONE_LABEL,
    ClusterStatusView,
    NodeStatus,
)
from controlplane.models.workflow import ConfigureStorageInput, CreateClusterInput

# Nodes a status names (those not ready first); the counts cover every node, GET .../nodes pages through them.
STATUS_NODES = 20
# What a node whose VPC CNI did not initialise lacks: its execution role's permissions (the policies stage 4 attaches).
NETWORK_NOT_READY = (
    "the nodes' network plugin (VPC CNI) has not initialised, so their pods get no IP address or image: the instance "
    "group's execution role needs "
    + "; ".join(
        f"{policy} for {purpose}" for policy, purpose in EXECUTION_ROLE_POLICIES.items() if policy != INSTANCE_POLICY
    )
    + ". Attach them to the role (stage 4 attaches them to the role it creates when it runs again)."
)
# The pipeline stage a successful operation of each kind completes.
STAGE_OF_KIND = {
    OperationKind.CREATE_EKS_CLUSTER: StageName.EKS,
    OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES: StageName.DEPENDENCIES,
    OperationKind.CREATE_HYPERPOD_CLUSTER: StageName.HYPERPOD,
    OperationKind.CONFIGURE_STORAGE: StageName.STORAGE,
}


class ClusterService:
    def __init__(
        self,
        registry: ClusterRegistry,
        eks: Callable[[str], EksGateway],
        hyperpod: Callable[[str], HyperPodGateway],
        kubernetes: KubernetesGateway,
        clock: Clock,
        *,
        stage_addons: Iterable[str] = (),
        kept_beside: Iterable[KeptBesideCluster] = (),
    ) -> None:
        """`stage_addons`: the EKS add-ons the dependencies stage installs, whose health the status reports.
        `kept_beside`: the records kept beside a cluster's, forgotten when its deletion succeeds."""
        self._stage_addons = tuple(stage_addons)
        self._kept_beside = tuple(kept_beside)
        self._registry = registry
        self._eks = eks
        self._hyperpod = hyperpod
        self._kubernetes = kubernetes
        self._clock = clock

    # --- reads -------------------------------------------------------------------------------

    def page(self, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None) -> Page[ClusterRecord]:
        """A page of the registry, by cluster tag."""
        return self._registry.page(limit, token)

    def get(self, cluster_tag: str) -> ClusterRecord:
        record = self._registry.find(cluster_tag)
        if record is None:
            raise ClusterNotFoundError(
                f"Cluster '{cluster_tag}' is not registered; GET /clusters lists the clusters this "
                "control plane manages.",
            )
        return record

    def ready_for(self, cluster_tag: str, stage: StageName, needs: StageName) -> ClusterRecord:
        """The record of a cluster that is ACTIVE and has finished the stage `stage` builds on."""
        record = self.get(cluster_tag)
        if needs.value not in record.stagesDone or record.status != ClusterStatus.ACTIVE:
            raise ClusterNotReadyError(
                f"Cluster '{cluster_tag}' has not finished the '{needs.value}' stage that '{stage.value}' builds on "
                f"(status {record.status}, done: {', '.join(record.stagesDone) or 'nothing'}). "
                "Finish or resume that stage first; GET /clusters/{clusterTag} shows where it stands.",
                {"needs": needs.value, "stagesDone": record.stagesDone},
            )
        return record

    def live_eks(self, record: ClusterRecord) -> dict[str, str | None]:
        """The EKS control plane as EKS reports it now (empty while it does not exist)."""
        cluster = self._eks(record.region).find_cluster(record.eksClusterName)
        if cluster is None:
            return {}
        return {
            "name": cluster.name,
            "arn": cluster.arn,
            "status": cluster.status,
            "version": cluster.version,
            "endpoint": cluster.endpoint,
            "authenticationMode": cluster.authentication_mode,
        }

    def status(self, cluster_tag: str) -> ClusterStatusView:
        """Stage 6: counts of nodes Ready and schedulable and of GPUs, what is still missing before work can run,
        and a capped list of nodes with those not ready first. HyperPod and Kubernetes are read at the same time."""
        record = self.get(cluster_tag)
        hyperpod_name = hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName)
        hyperpod, (eks, nodes) = together(
            lambda: self._hyperpod(record.region).find_cluster(hyperpod_name), lambda: self._nodes(record)
        )
        # Counted on the port's plain nodes; only the nodes the answer names become models.
        ready = [node for node in nodes if node.ready and node.schedulable]
        not_ready = [node for node in nodes if not (node.ready and node.schedulable)]
        missing = [f"stage '{stage.value}'" for stage in StageName if stage.value not in record.stagesDone]
        if hyperpod is not None and hyperpod.status != "InService":
            missing.append(f"HyperPod cluster InService (now {hyperpod.status})")
        if not_ready:
            names = ", ".join(_named(node) for node in not_ready[:STATUS_NODES])
            more = len(not_ready) - STATUS_NODES
            missing.append(f"nodes Ready and schedulable: {names}" + (f" and {more} more" if more > 0 else ""))
        if any(_network_not_ready(node) for node in not_ready):
            missing.append(NETWORK_NOT_READY)
        if StageName.HYPERPOD.value in record.stagesDone and not nodes:
            missing.append("at least one node")
        if eks is not None and eks.status == "ACTIVE" and StageName.DEPENDENCIES.value in record.stagesDone:
            missing += self._addon_findings(record, eks, nodes)
        return ClusterStatusView(
            clusterTag=cluster_tag,
            ready=not missing,
            stagesDone=record.stagesDone,
            missing=missing,
            eksStatus=eks.status if eks else None,
            hyperPodStatus=hyperpod.status if hyperpod else None,
            nodesTotal=len(nodes),
            nodesReady=len(ready),
            nodesNotReady=len(not_ready),
            gpusTotal=sum(_gpus(node.capacity) for node in nodes),
            gpusAllocatable=sum(_gpus(node.allocatable) for node in ready),
            nodes=[_node_status(node) for node in (not_ready + ready)[:STATUS_NODES]],
        )

    def _addon_findings(self, record: ClusterRecord, eks: EksCluster, nodes: list[KubernetesNode]) -> list[str]:
        """What keeps each add-on of the dependencies stage from being ACTIVE, the add-ons read together."""
        gateway = self._eks(record.region)

        def finding(addon: str) -> str | None:
            found = gateway.find_addon(eks.name, addon)
            if found is None:
                return f"add-on {addon} (not installed: run the dependencies stage again)"
            health = addon_health(found, lambda: schedulable(nodes))
            if health.health == Health.ACTIVE:
                return None
            if health.health == Health.WAITING_FOR_NODES:
                return f"add-on {addon} ACTIVE (now installed, waiting for a schedulable node to run its pods)"
            issues = "; ".join(str(issue) for issue in found.issues)
            return f"add-on {addon} ACTIVE (now {found.status}" + (f": {issues})" if issues else ")")

        return [found for found in each(finding, self._stage_addons) if found is not None]

    def _nodes(self, record: ClusterRecord) -> tuple[EksCluster | None, list[KubernetesNode]]:
        eks = self._eks(record.region).find_cluster(record.eksClusterName)
        if eks is None or eks.status != "ACTIVE":
            return eks, []
        return eks, self._kubernetes.nodes(eks, record.region)

    # --- following the workflows -------------------------------------------------------------

    def record_stage(self, ctx: CreateClusterInput, stage: StageName) -> None:
        """A pipeline stage finished: the registry shows it done even if a later stage fails (on the incarnation the
        pipeline builds only)."""
        record = require_current(ctx.operationId, ctx.clusterTag, ctx.incarnation, self._registry.find(ctx.clusterTag))
        update: dict[str, object] = {"updatedAt": self._clock.now()}
        if stage.value not in record.stagesDone:
            update["stagesDone"] = [*record.stagesDone, stage.value]
        if stage == StageName.EKS:
            update["status"] = ClusterStatus.ACTIVE
        if stage == StageName.HYPERPOD:
            update["hyperPodClusterName"] = hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName)
        if stage == StageName.STORAGE:
            update.update(storage_facts(ctx.storage))
        self._registry.save(record.model_copy(update=update))

    def record_outcome(self, operation: Operation) -> None:
        """Bring the registry in line with a finished operation (succeeded, failed or cancelled) and release the
        lock its attempt holds; a deleted cluster's VPC CIDR is free again, and what was kept beside it forgotten. An
        operation of a cluster incarnation that is gone changes nothing (it holds no lock on another)."""
        now = self._clock.now()
        record = self._registry.find(operation.target)
        if record is None or record.incarnation != operation.incarnation:
            return
        succeeded = operation.status == OperationStatus.SUCCEEDED
        if operation.kind == OperationKind.DELETE_EKS_CLUSTER and succeeded:
            if record.vpcCidr is not None:
                self._registry.release_cidr(record.region, record.vpcCidr, record.clusterTag)
            for records in self._kept_beside:
                records.forget_cluster(record.clusterTag)
            self._registry.delete(operation.target)
            return
        update: dict[str, object] = {
            "lastOperationId": operation.operationId,
            "lastOperation": LastOperation.of(operation, now),
            "updatedAt": now,
        }
        stage = STAGE_OF_KIND.get(operation.kind)
        if operation.kind == OperationKind.IMPORT_CLUSTER:
            update["status"] = ClusterStatus.ACTIVE if succeeded else ClusterStatus.FAILED
        elif operation.kind in (OperationKind.CREATE_EKS_CLUSTER, OperationKind.CREATE_CLUSTER):
            eks_done = succeeded or StageName.EKS.value in record.stagesDone
            update["status"] = ClusterStatus.ACTIVE if eks_done else ClusterStatus.FAILED
        elif operation.kind == OperationKind.DELETE_EKS_CLUSTER:
            update["status"] = ClusterStatus.FAILED
        if succeeded and stage is not None and stage.value not in record.stagesDone:
            update["stagesDone"] = [*record.stagesDone, stage.value]
        if succeeded and stage == StageName.HYPERPOD:
            update["hyperPodClusterName"] = hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName)
        if succeeded and operation.kind == OperationKind.CONFIGURE_STORAGE:
            update.update(storage_facts(ConfigureStorageInput.model_validate(operation.input).storage))
        self._registry.save(record.model_copy(update=update))
        self._registry.release(operation.target, operation.operationId, operation.attempt)


def _named(node: KubernetesNode) -> str:
    return f"{node.name} ({node.not_ready_reason})" if node.not_ready_reason else node.name


def _network_not_ready(node: KubernetesNode) -> bool:
    """The kubelet says the node's network plugin (the VPC CNI) has not initialised."""
    reason = (node.not_ready_reason or "").lower()
    return "networkpluginnotready" in reason or "cni plugin not initialized" in reason


def _node_status(node: KubernetesNode) -> NodeStatus:
    return NodeStatus(
        name=node.name,
        instanceGroup=node.labels.get(GROUP_LABEL),
        instanceType=node.labels.get(INSTANCE_TYPE_LABEL),
        availabilityZone=node.labels.get(ZONE_LABEL),
        ready=node.ready,
        schedulable=node.schedulable,
        health=node.labels.get(HEALTH_LABEL),
        gpus=_gpus(node.capacity),
        allocatableGpus=_gpus(node.allocatable),
    )


def _gpus(resources: dict[str, str]) -> int:
    return int(resources.get(GPU_RESOURCE, "0"))
