"""The HyperPod simulation: clusters and their lifecycles over simulated time, testable without moto.

CreateCluster is ``Creating`` and then ``InService`` with its nodes; UpdateCluster scales, adds and deletes
groups and changes settings; UpdateClusterSoftware moves groups to a new image while the cluster is
``SystemUpdating``; nodes reboot, are replaced or deleted; an unhealthy node is replaced under automatic recovery.
Every transition takes ``seconds`` and happens lazily: each operation first runs the transitions that have come
due, so no thread exists. Nodes show up in Kubernetes through :class:`HyperPodKubernetes`; subnets, zones and
the EKS orchestrator are read through :class:`~sandbox.aws.hyperpod.fleet.Account`.
"""

from __future__ import annotations

import secrets
import string
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from sandbox.aws.hyperpod import access, events, rules
from sandbox.aws.hyperpod.clock import Scheduler
from sandbox.aws.hyperpod.fleet import Account, Fleet, Where
from sandbox.aws.hyperpod.kubernetes import HEALTH_LABEL, HyperPodKubernetes
from sandbox.aws.hyperpod.model import (
    LATEST_IMAGE_VERSION,
    PENDING_REPLACEMENT,
    BatchOutcome,
    Cluster,
    ClusterSettings,
    GroupSpec,
    HyperPodError,
    InstanceGroup,
    JsonObject,
    Node,
    NodeFailure,
    TrainingPlan,
    validation,
)

DEFAULT_ACCOUNT_ID = "123456789012"  # moto's, and so the sandbox's
_ID_ALPHABET = string.ascii_lowercase + string.digits
_DEFAULT_DEPLOYMENT = {
    "RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "CAPACITY_PERCENTAGE", "Value": 100}},
    "WaitIntervalInSeconds": 0,
}


class HyperPodSimulation:
    """Every simulated HyperPod cluster and training plan, per (account, region). Thread-safe."""

    def __init__(
        self,
        kubernetes: HyperPodKubernetes,
        account: Account,
        seconds: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lock = threading.RLock()
        self._kubernetes = kubernetes
        self._account = account
        self._scheduler = Scheduler(seconds, clock, after=self._changed)
        self._events = events.Emitter()
        self._fleet = Fleet(kubernetes, account, self._plan)
        self._clusters: dict[Where, dict[str, Cluster]] = {}
        self._plans: dict[Where, dict[str, TrainingPlan]] = {}

    @property
    def seconds(self) -> float:
        """How long each transition takes (a benchmark may set it; those already scheduled keep their time)."""
        return self._scheduler.seconds

    @seconds.setter
    def seconds(self, seconds: float) -> None:
        self._scheduler.seconds = seconds

    @contextmanager
    def held(self) -> Iterator[None]:
        """Simulated time stands still inside: a test reads a transient state (a node rebooting, replacing or
        pending replacement) however short `seconds` is and however slow the machine."""
        with self._scheduler.held():
            yield

    def on_event(self, listener: Callable[[JsonObject], None]) -> None:
        """`listener` receives each EventBridge event HyperPod emits (called under the lock: queue, do not act)."""
        self._events.listen(listener)

    def advance(self) -> None:
        """Run every transition that has come due (every operation does this first), and let nodes whose execution
        role now allows what they need become Ready."""
        with self.lock:
            self._scheduler.run_due()
            for clusters in self._clusters.values():
                for cluster in clusters.values():
                    self._fleet.recheck_permissions(cluster)

    # --- reads ---------------------------------------------------------------------------------

    def cluster(self, where: Where, name_or_arn: str) -> Cluster:
        with self.lock:
            self.advance()
            return self._find(where, name_or_arn)

    def clusters(self, where: Where) -> list[Cluster]:
        """The region's clusters, oldest first."""
        with self.lock:
            self.advance()
            return sorted(self._clusters.get(where, {}).values(), key=lambda cluster: cluster.created)

    def training_plans(self, where: Where) -> list[TrainingPlan]:
        with self.lock:
            return sorted(self._plans.get(where, {}).values(), key=lambda plan: plan.start)

    def training_plan(self, where: Where, name_or_arn: str) -> TrainingPlan:
        with self.lock:
            for plan in self._plans.get(where, {}).values():
                if name_or_arn in (plan.name, plan.arn):
                    return plan
        raise HyperPodError("ResourceNotFound", f"Training plan {name_or_arn} not found.")

    def addresses_in(self, subnet_id: str) -> int:
        """IPv4 addresses HyperPod nodes hold in a subnet: each node's private address (its primary interface)."""
        with self.lock:
            return sum(
                1
                for clusters in self._clusters.values()
                for cluster in clusters.values()
                for node in cluster.nodes
                if node.subnet_id == subnet_id
            )

    def nodes_on_plan(self, plan: TrainingPlan) -> int:
        with self.lock:
            return sum(
                1
                for clusters in self._clusters.values()
                for cluster in clusters.values()
                for node in cluster.nodes
                if node.group in cluster.groups and cluster.groups[node.group].spec.training_plan_arn == plan.arn
            )

    # --- clusters ------------------------------------------------------------------------------

    def create_cluster(
        self, where: Where, name: str, groups: list[GroupSpec], settings: ClusterSettings, tags: dict[str, str]
    ) -> Cluster:
        with self.lock:
            self.advance()
            clusters = self._clusters.setdefault(where, {})
            rules.check_new_cluster(name, groups, settings, exists=name in clusters)
            if settings.eks_cluster_arn and settings.eks_cluster_name:
                eks = self._account.eks_cluster(where, settings.eks_cluster_name)
                rules.check_orchestrator(*where, settings.eks_cluster_arn, eks)
            rules.check_settings(settings)
            for spec in groups:
                self._check_group(where, spec, settings)
            cluster_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(12))
            account, region = where
            cluster = Cluster(
                name=name,
                arn=f"arn:aws:sagemaker:{region}:{account}:cluster/{cluster_id}",
                account=account,
                region=region,
                created=time.time(),
                settings=settings,
                tags=dict(tags),
                groups={spec.name: InstanceGroup(spec=spec, target=spec.count) for spec in groups},
            )
            clusters[name] = cluster
            self._changed(cluster)
            denial = self._access_entries(where, cluster)

            def in_service() -> None:
                for group in cluster.groups.values():
                    if group.creating:
                        self._finish_group_creation(cluster, group)
                cluster.creating = False
                cluster.autoscaling_ready = True

            def failed() -> None:
                cluster.creating = False
                cluster.failure_message = denial

            self._scheduler.later(cluster, failed if denial else in_service)
            return cluster

    def delete_cluster(self, where: Where, name: str) -> Cluster:
        with self.lock:
            self.advance()
            cluster = self._find(where, name)
            if cluster.deleting:
                return cluster
            cluster.deleting = True
            self._scheduler.cancel(cluster)

            def gone() -> None:
                for node in list(cluster.nodes):
                    self._fleet.terminate(cluster, node)
                self._clusters.get(where, {}).pop(cluster.name, None)

            self._scheduler.later(cluster, gone)
            return cluster

    def update_cluster(
        self,
        where: Where,
        name: str,
        groups: list[GroupSpec],
        deleted: list[str],
        settings: ClusterSettings | None = None,
        autoscaling: bool | None = None,
    ) -> Cluster:
        """Replace or add ``groups``, delete ``deleted``, and (when given) take new ``settings``.

        ``autoscaling`` is the AutoScaling mode the request sets, if it sets one: managed Karpenter then
        settles again. A group spec without an instance type keeps the group's.
        """
        with self.lock:
            self.advance()
            cluster = self._find(where, name)
            rules.check_mutable(cluster)
            specs = [_inherit(cluster, spec) for spec in groups]
            for group_name in deleted:
                if group_name not in cluster.groups:
                    raise validation(f"Instance group {group_name} does not exist in cluster {cluster.name}.")
            for spec in specs:
                rules.check_group_change(cluster, spec, deleted)
                self._check_group(where, spec, cluster.settings)
            if settings is not None:
                rules.check_settings_change(cluster, settings)
                cluster.settings = settings
            changed: list[InstanceGroup] = []
            for spec in specs:
                group = cluster.groups.get(spec.name)
                if group is None:
                    group = cluster.groups[spec.name] = InstanceGroup(spec=spec, target=spec.count)
                else:
                    group.spec, group.target = spec, spec.count
                    group.scaling += 1
                changed.append(group)
            deleting = [cluster.groups[group_name] for group_name in deleted]
            for group in deleting:
                group.deleting = True
            cluster.updating += 1
            if autoscaling is not None:
                cluster.autoscaling_ready = False

            def finish() -> None:
                for group in changed:
                    if group.name not in cluster.groups:
                        continue
                    if group.creating:
                        self._finish_group_creation(cluster, group)
                    else:
                        group.scaling = max(0, group.scaling - 1)
                        self._fleet.reconcile(cluster, group)
                for group in deleting:
                    for node in cluster.group_nodes(group.name):
                        self._fleet.terminate(cluster, node)
                    cluster.groups.pop(group.name, None)
                cluster.updating -= 1
                cluster.autoscaling_ready = True
                if autoscaling is not None:
                    self._kubernetes.serve_karpenter(cluster, autoscaling)

            self._scheduler.later(cluster, finish)
            return cluster

    def update_software(
        self,
        where: Where,
        name: str,
        versions: dict[str, str | None] | None,
        image_id: str | None = None,
        deployment: JsonObject | None = None,
    ) -> Cluster:
        """Move groups (``versions``: group → image release, None: the latest; all groups when None) to a new image."""
        with self.lock:
            self.advance()
            cluster = self._find(where, name)
            rules.check_mutable(cluster)
            wanted = versions if versions is not None else dict.fromkeys(cluster.groups)
            targets: list[tuple[InstanceGroup, str]] = []
            for group_name, version in wanted.items():
                if group_name not in cluster.groups:
                    raise validation(f"Instance group {group_name} does not exist in cluster {cluster.name}.")
                targets.append((cluster.groups[group_name], version or LATEST_IMAGE_VERSION))
            for group, version in targets:
                group.software_status = "InProgress"
                group.software_pending += 1
                group.software_deployment = deployment or _DEFAULT_DEPLOYMENT
                group.desired_image_version = version
                if image_id:
                    group.desired_image_id = image_id
            cluster.system_updating += 1

            def finish() -> None:
                now = time.time()
                for group, version in targets:
                    group.software_pending -= 1
                    group.software_status = "Succeeded"
                    group.image_version = version
                    group.image_id = group.desired_image_id
                    for node in cluster.group_nodes(group.name):
                        node.image_version = version
                        node.last_software_update = now
                cluster.system_updating -= 1

            self._scheduler.later(cluster, finish)
            return cluster

    # --- nodes ---------------------------------------------------------------------------------

    def reboot_nodes(self, where: Where, name: str, node_ids: list[str]) -> BatchOutcome:
        def reboot(cluster: Cluster, node: Node) -> None:
            node.status, node.message = "Pending", "Rebooting"
            self._kubernetes.patch_node(cluster, node, ready="Unknown")

            def done() -> None:
                if node in cluster.nodes and node.status == "Pending":
                    node.status, node.message = "Running", ""
                    self._kubernetes.patch_node(cluster, node, ready="False" if node.missing_permissions else "True")
                    self._events.instance_done(cluster, node, "rebooted")

            self._scheduler.later(cluster, done)

        return self._batch(where, name, node_ids, "InstanceIdNotFound", "InvalidInstanceStatus", reboot)

    def replace_nodes(self, where: Where, name: str, node_ids: list[str]) -> BatchOutcome:
        def replace(cluster: Cluster, node: Node) -> None:
            node.status, node.message = "ShuttingDown", "Replacing"
            self._scheduler.later(cluster, lambda: self._replace(cluster, node))

        return self._batch(where, name, node_ids, "InstanceIdNotFound", "InvalidInstanceStatus", replace)

    def delete_nodes(self, where: Where, name: str, node_ids: list[str]) -> BatchOutcome:
        def delete(cluster: Cluster, node: Node) -> None:
            group = cluster.groups.get(node.group)
            if group is not None:
                group.target = max(0, group.target - 1)
            node.status, node.message = "ShuttingDown", "Deleting"

            def gone() -> None:
                self._fleet.terminate(cluster, node)
                self._events.instance_done(cluster, node, "deleted")

            self._scheduler.later(cluster, gone)

        return self._batch(where, name, node_ids, "NodeIdNotFound", "InvalidNodeStatus", delete, ("Running", "Pending"))

    def mark_node_unhealthy(self, cluster_name: str, instance_id: str, repairs: bool | None = None) -> None:
        """The health agent's verdict on a node: relabelled and tainted, and its Node Health Event emitted; replaced
        later when HyperPod repairs it (`repairs`; by default, under the cluster's automatic recovery)."""
        with self.lock:
            self.advance()
            cluster = next((c[cluster_name] for c in self._clusters.values() if cluster_name in c), None)
            if cluster is None:
                raise KeyError(f"No HyperPod cluster named {cluster_name}")
            node = cluster.node(instance_id)
            if node is None:
                raise KeyError(f"Node {instance_id} is not in cluster {cluster_name}")
            node.health = PENDING_REPLACEMENT
            taint = {"key": HEALTH_LABEL, "value": "Unschedulable", "effect": "NoSchedule"}
            self._kubernetes.patch_node(cluster, node, labels={HEALTH_LABEL: node.health}, taints=([], [taint]))
            repairing = cluster.settings.automatic_recovery if repairs is None else repairs
            self._events.emit(events.node_health(cluster, node, "Unhealthy", "Replace" if repairing else "None"))
            if repairing:
                self._scheduler.later(cluster, lambda: self._replace(cluster, node))

    def resize_group_out_of_band(self, cluster_name: str, group_name: str, count: int) -> None:
        """Someone's own UpdateCluster, behind the control plane's back: the group's target becomes ``count``."""
        where = next((w for w, clusters in self._clusters.items() if cluster_name in clusters), None)
        if where is None:
            raise KeyError(f"No HyperPod cluster named {cluster_name}")
        group = self._clusters[where][cluster_name].groups.get(group_name)
        if group is None:
            raise KeyError(f"Instance group {group_name} is not in cluster {cluster_name}")
        self.update_cluster(where, cluster_name, [replace(group.spec, count=count)], [])

    # --- training plans ------------------------------------------------------------------------

    def add_training_plan(
        self,
        region: str,
        name: str,
        instance_type: str,
        count: int,
        availability_zone: str,
        account_id: str = DEFAULT_ACCOUNT_ID,
        duration_hours: int = 24,
    ) -> str:
        """Seed an Active training plan (moto has none); returns its ARN."""
        where = (account_id, region)
        arn = f"arn:aws:sagemaker:{region}:{account_id}:training-plan/{name}"
        zone_id = self._account.zone_id(where, availability_zone)
        plan = TrainingPlan(arn, name, instance_type, count, availability_zone, zone_id, time.time(), duration_hours)
        with self.lock:
            self._plans.setdefault(where, {})[name] = plan
        return arn

    # --- helpers -------------------------------------------------------------------------------

    def _changed(self, cluster: Cluster) -> None:
        """A transition ran: the cluster's state change event, while the cluster exists (if its status changed)."""
        if cluster.name in self._clusters.get((cluster.account, cluster.region), {}):
            self._events.status(cluster)

    def _replace(self, cluster: Cluster, node: Node) -> None:
        replacement = self._fleet.replace(cluster, node)
        if replacement is not None:
            self._events.instance_done(cluster, node, f"replaced by {replacement.instance_id}")

    def _find(self, where: Where, name_or_arn: str) -> Cluster:
        clusters = self._clusters.get(where, {})
        found = next((c for c in clusters.values() if c.arn == name_or_arn), None) or clusters.get(name_or_arn)
        if found is None:
            raise HyperPodError("ResourceNotFound", f"Cluster with name or arn {name_or_arn} not found")
        return found

    def _access_entries(self, where: Where, cluster: Cluster) -> str | None:
        """HyperPod creates each execution role's access entry in the EKS cluster with the caller's credentials
        (sandbox.aws.hyperpod.access): why it could not, or None. Only a control plane function's policies are
        known; anyone else's call is not judged."""
        caller = self._account.caller(where)
        eks_arn, eks_name = cluster.settings.eks_cluster_arn, cluster.settings.eks_cluster_name
        if caller is None or eks_arn is None or eks_name is None:
            return None
        tags = self._account.eks_cluster_tags(where, eks_name)
        roles = sorted({group.spec.execution_role for group in cluster.groups.values() if group.spec.execution_role})
        for role in roles:
            denial = access.forward_access_denial(caller, role, access.access_entry_requests(eks_arn, role, tags))
            if denial:
                return denial
        return None

    def _plan(self, where: Where, arn: str | None) -> TrainingPlan | None:
        return next((plan for plan in self._plans.get(where, {}).values() if plan.arn == arn), None)

    def _check_group(self, where: Where, spec: GroupSpec, settings: ClusterSettings) -> None:
        rules.check_group(spec)
        zones = {zone for _, zone, _ in self._fleet.zones(where, spec, settings)}
        if spec.training_plan_arn:
            rules.check_training_plan(spec, zones, self._plan(where, spec.training_plan_arn))

    def _batch(
        self,
        where: Where,
        name: str,
        node_ids: list[str],
        not_found: str,
        bad_status: str,
        act: Callable[[Cluster, Node], None],
        acts_on: tuple[str, ...] = ("Running",),
    ) -> BatchOutcome:
        """Act on each node whose status is in ``acts_on``; unknown nodes and others fail in band."""
        with self.lock:
            self.advance()
            cluster = self._find(where, name)
            if not node_ids:
                raise validation("Either NodeIds or NodeLogicalIds must be specified.")
            if cluster.status in ("Creating", "Deleting"):
                raise validation(f"Cluster {cluster.name} is in {cluster.status} status.")
            successful: list[str] = []
            failed: list[NodeFailure] = []
            for node_id in node_ids:
                node = cluster.node(node_id)
                if node is None:
                    failed.append(NodeFailure(node_id, not_found, f"Node {node_id} not found."))
                elif node.status not in acts_on:
                    failed.append(NodeFailure(node_id, bad_status, f"Node {node_id} is in {node.status} status."))
                else:
                    act(cluster, node)
                    successful.append(node_id)
            return BatchOutcome(successful, failed)

    def _finish_group_creation(self, cluster: Cluster, group: InstanceGroup) -> None:
        group.creating = False
        self._fleet.reconcile(cluster, group)


def _inherit(cluster: Cluster, spec: GroupSpec) -> GroupSpec:
    """The given spec replaces the group's; the immutable instance type carries over when omitted."""
    existing = cluster.groups.get(spec.name)
    if existing is None or spec.instance_type or spec.instance_types:
        return spec
    return replace(spec, instance_type=existing.spec.instance_type, instance_types=existing.spec.instance_types)
