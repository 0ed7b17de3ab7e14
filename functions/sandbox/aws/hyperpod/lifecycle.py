"""HyperPod clusters over simulated time: CreateCluster is ``Creating`` and then ``InService`` with its nodes (or
``Failed`` when HyperPod may not create the execution roles' access entries); UpdateCluster scales, adds and deletes
groups and changes settings; UpdateClusterSoftware moves groups to a new image while the cluster is
``SystemUpdating``; DeleteCluster takes the nodes with it.
"""

from __future__ import annotations

import secrets
import string
import time
import uuid
from dataclasses import replace

from sandbox.aws.hyperpod import access, rules
from sandbox.aws.hyperpod.fleet import Where
from sandbox.aws.hyperpod.model import (
    LATEST_IMAGE_VERSION,
    Cluster,
    ClusterSettings,
    GroupSpec,
    InstanceGroup,
    JsonObject,
    validation,
)
from sandbox.aws.hyperpod.state import SimulationState

_ID_ALPHABET = string.ascii_lowercase + string.digits
_DEFAULT_DEPLOYMENT = {
    "RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "CAPACITY_PERCENTAGE", "Value": 100}},
    "WaitIntervalInSeconds": 0,
}


class ClusterLifecycle(SimulationState):
    """Create, change (groups, settings, software) and delete clusters."""

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
                for node in cluster.nodes:
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
            scaling = scaling_operation(cluster) if changed else None

            def finish() -> None:
                for group in changed:
                    if group.name not in cluster.groups:
                        continue
                    created = group.creating
                    if created:
                        self._finish_group_creation(cluster, group)
                    else:
                        group.scaling = max(0, group.scaling - 1)
                        self._fleet.reconcile(cluster, group)
                    if scaling is not None:
                        done = "created" if created else "scaled"
                        self._events.group_done(cluster, group.name, f"{done} to {group.target} instances", scaling)
                if scaling is not None:
                    finish_operation(cluster, scaling)
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

    def resize_group_out_of_band(self, cluster_name: str, group_name: str, count: int) -> None:
        """Someone's own UpdateCluster, behind the control plane's back: the group's target becomes ``count``."""
        where = next((w for w, clusters in self._clusters.items() if cluster_name in clusters), None)
        if where is None:
            raise KeyError(f"No HyperPod cluster named {cluster_name}")
        group = self._clusters[where][cluster_name].groups.get(group_name)
        if group is None:
            raise KeyError(f"Instance group {group_name} is not in cluster {cluster_name}")
        self.update_cluster(where, cluster_name, [replace(group.spec, count=count)], [])

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

    def _check_group(self, where: Where, spec: GroupSpec, settings: ClusterSettings) -> None:
        rules.check_group(spec)
        zones = {zone for _, zone, _ in self._fleet.zones(where, spec, settings)}
        if spec.training_plan_arn:
            rules.check_training_plan(spec, zones, self._plan(where, spec.training_plan_arn))

    def _finish_group_creation(self, cluster: Cluster, group: InstanceGroup) -> None:
        group.creating = False
        self._fleet.reconcile(cluster, group)


def scaling_operation(cluster: Cluster) -> str:
    """A Scaling cluster operation (ListClusterOperations) for an UpdateCluster that changes groups; its id."""
    operation_id = str(uuid.uuid4())
    if cluster.settings.continuous:
        summary = {"OperationId": operation_id, "ClusterArn": cluster.arn, "Type": "Scaling", "Status": "InProgress"}
        cluster.operations.append({**summary, "CreationTime": time.time()})
    return operation_id


def finish_operation(cluster: Cluster, operation_id: str) -> None:
    for operation in cluster.operations:
        if operation["OperationId"] == operation_id:
            operation["Status"] = "Done"


def _inherit(cluster: Cluster, spec: GroupSpec) -> GroupSpec:
    """The given spec replaces the group's; the immutable instance type carries over when omitted."""
    existing = cluster.groups.get(spec.name)
    if existing is None or spec.instance_type or spec.instance_types:
        return spec
    return replace(spec, instance_type=existing.spec.instance_type, instance_types=existing.spec.instance_types)
