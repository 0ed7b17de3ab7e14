"""An in-memory HyperPodGateway: clusters, instance groups and nodes as the SageMaker adapter reports them.

What takes minutes in SageMaker happens on `settle()`: creating clusters and groups turn InService with their target
counts and nodes, deletions finish, software updates succeed, a settings update (which leaves the cluster Updating and
AutoScaling Creating or Deleting) finishes. Every mutating call is recorded in `calls`, so a test
can assert that a step changed nothing.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import datetime
from typing import Any

from controlplane.core.paging import Page, page_of
from controlplane.core.ports.hyperpod import (
    GroupChange,
    HyperPodCluster,
    HyperPodClusterSpec,
    HyperPodNode,
    InstanceGroup,
    InstanceGroupSpec,
    NodeActionOutcome,
    NodeFailure,
    RollingUpdate,
)

ARN_PREFIX = "arn:aws:sagemaker:us-west-2:123456789012:cluster/"


def new_group(spec: InstanceGroupSpec) -> InstanceGroup:
    """A group as DescribeCluster reports it right after CreateCluster or UpdateCluster asked for it."""
    return InstanceGroup(
        name=spec.name,
        instance_type=spec.instance_type,
        status="Creating",
        current_count=0,
        target_count=spec.count,
        min_count=spec.min_count,
        capacity_type=spec.capacity_type,
        training_plan_arn=spec.training_plan_arn,
        network_interface=spec.network_interface,
        subnet_ids=spec.subnet_ids,
        deep_health_checks=spec.deep_health_checks,
        ebs_volume_gb=spec.ebs_volume_gb,
        threads_per_core=spec.threads_per_core,
        labels=dict(spec.labels),
        taints=spec.taints,
    )


class InMemoryHyperPodGateway:
    def __init__(self) -> None:
        self.clusters: dict[str, HyperPodCluster] = {}
        self.cluster_nodes: dict[str, list[HyperPodNode]] = {}
        self.calls: list[tuple[Any, ...]] = []
        self._next_node = 0

    def find_cluster(self, name: str) -> HyperPodCluster | None:
        return self.clusters.get(name)

    def create_cluster(self, spec: HyperPodClusterSpec) -> str:
        if spec.name in self.clusters:
            raise ValueError(f"ResourceInUse: cluster {spec.name} already exists")
        self.calls.append(("create_cluster", spec.name))
        arn = ARN_PREFIX + spec.name
        self.clusters[spec.name] = HyperPodCluster(
            name=spec.name,
            arn=arn,
            status="Creating",
            failure_message=None,
            groups=tuple(new_group(group) for group in spec.groups),
            tags=dict(spec.tags),
            subnet_ids=spec.subnet_ids,
            security_group_ids=spec.security_group_ids,
            settings={"NodeRecovery": spec.node_recovery, "NodeProvisioningMode": "Continuous"},
            eks_cluster_arn=spec.eks_cluster_arn,
        )
        return arn

    def delete_cluster(self, name: str) -> None:
        self.calls.append(("delete_cluster", name))
        if name in self.clusters:
            self.clusters[name] = replace(self.clusters[name], status="Deleting")

    def add_group(self, cluster_name: str, group: InstanceGroupSpec, security_group_ids: tuple[str, ...]) -> None:
        cluster = self._cluster(cluster_name)
        if cluster.group(group.name) is not None:
            raise ValueError(f"ValidationException: instance group {group.name} already exists")
        self.calls.append(("add_group", cluster_name, group, security_group_ids))
        self._put_groups(cluster, (*cluster.groups, new_group(group)))

    def update_group(self, cluster_name: str, group_name: str, change: GroupChange) -> None:
        cluster = self._cluster(cluster_name)
        group = cluster.group(group_name)
        if group is None:
            raise LookupError(f"Instance group {group_name} is not in cluster {cluster_name}.")
        self.calls.append(("update_group", cluster_name, group_name, change))
        changed = replace(
            group,
            target_count=group.target_count if change.count is None else change.count,
            min_count=group.min_count if change.min_count is None else change.min_count,
            labels=group.labels if change.labels is None else dict(change.labels),
            taints=group.taints if change.taints is None else change.taints,
            deep_health_checks=group.deep_health_checks
            if change.deep_health_checks is None
            else change.deep_health_checks,
            scaling_operations=1 if change.count not in (None, group.target_count) else group.scaling_operations,
        )
        self._put_groups(cluster, tuple(changed if item.name == group_name else item for item in cluster.groups))

    def delete_group(self, cluster_name: str, group_name: str) -> None:
        cluster = self._cluster(cluster_name)
        self.calls.append(("delete_group", cluster_name, group_name))
        self._put_groups(
            cluster,
            tuple(replace(item, status="Deleting") if item.name == group_name else item for item in cluster.groups),
        )

    def nodes(self, cluster_name: str) -> list[HyperPodNode]:
        """Every node of the cluster (a test helper; the port reads pages and single nodes)."""
        return list(self.cluster_nodes.get(cluster_name, [])) if cluster_name in self.clusters else []

    def node_page(self, cluster_name: str, limit: int, token: str | None = None) -> Page[HyperPodNode]:
        return page_of(self.nodes(cluster_name), limit, token)

    def group_nodes_since(self, cluster_name: str, group: str, since: datetime) -> list[HyperPodNode]:
        return [
            node
            for node in self.nodes(cluster_name)
            if node.group == group and node.launch_time is not None and node.launch_time > since
        ]

    def node(self, cluster_name: str, node_id: str) -> HyperPodNode | None:
        return next((node for node in self.nodes(cluster_name) if node.node_id == node_id), None)

    def node_action(self, cluster_name: str, action: str, node_ids: list[str]) -> NodeActionOutcome:
        self.calls.append(("node_action", cluster_name, action, tuple(node_ids)))
        known = {node.node_id: node for node in self.nodes(cluster_name)}
        successful = tuple(node_id for node_id in node_ids if node_id in known)
        failed = tuple(
            NodeFailure(node_id=node_id, code="InstanceIdNotFound", message=f"{node_id} is not in the cluster")
            for node_id in node_ids
            if node_id not in known
        )
        if action == "delete":
            self.cluster_nodes[cluster_name] = [node for node in known.values() if node.node_id not in successful]
            cluster = self._cluster(cluster_name)
            removed = [known[node_id].group for node_id in successful]
            self._put_groups(
                cluster,
                tuple(
                    replace(group, target_count=group.target_count - removed.count(group.name))
                    for group in cluster.groups
                ),
            )
        return NodeActionOutcome(successful=successful, failed=failed)

    def update_software(
        self, cluster_name: str, groups: list[str], image_id: str | None, rolling: RollingUpdate
    ) -> None:
        cluster = self._cluster(cluster_name)
        self.calls.append(("update_software", cluster_name, tuple(groups), image_id, rolling))
        self._put_groups(
            cluster,
            tuple(
                replace(group, software_update_status="InProgress", desired_image_id=image_id or group.desired_image_id)
                if group.name in groups
                else group
                for group in cluster.groups
            ),
        )

    def start_health_check(self, cluster_name: str, nodes: dict[str, list[str]], checks: list[str]) -> None:
        """Every named node is DeepHealthCheckInProgress until the test says how its check ended."""
        self._cluster(cluster_name)
        self.calls.append(("start_health_check", cluster_name, copy.deepcopy(nodes), tuple(checks)))
        checked = {node_id for node_ids in nodes.values() for node_id in node_ids}
        self.cluster_nodes[cluster_name] = [
            replace(node, status="DeepHealthCheckInProgress") if node.node_id in checked else node
            for node in self.nodes(cluster_name)
        ]

    def set_node(self, cluster_name: str, node_id: str, **fields: Any) -> None:
        """Change one node's fields (its status, say), as SageMaker would."""
        self.cluster_nodes[cluster_name] = [
            replace(node, **fields) if node.node_id == node_id else node for node in self.nodes(cluster_name)
        ]

    def update_settings(self, name: str, settings: dict[str, Any]) -> None:
        cluster = self._cluster(name)
        self.calls.append(("update_settings", name, copy.deepcopy(settings)))
        merged = {**cluster.settings, **copy.deepcopy(settings)}
        if "AutoScaling" in settings:
            enabling = settings["AutoScaling"].get("Mode") == "Enable"
            merged["AutoScaling"] = {**settings["AutoScaling"], "Status": "Creating" if enabling else "Deleting"}
        self.clusters[name] = replace(cluster, status="Updating", settings=merged)

    def sent_settings(self) -> list[dict[str, Any]]:
        """The settings of every `update_settings` call, in order."""
        return [call[2] for call in self.calls if call[0] == "update_settings"]

    def put_cluster(self, name: str, groups: tuple[InstanceGroup, ...] = (), **fields: Any) -> HyperPodCluster:
        """An InService cluster with these groups (and a node per current instance), as if created earlier."""
        cluster = HyperPodCluster(
            name=name,
            arn=ARN_PREFIX + name,
            status=fields.pop("status", "InService"),
            failure_message=fields.pop("failure_message", None),
            groups=groups,
            **fields,
        )
        self.clusters[name] = cluster
        self.cluster_nodes[name] = []
        for group in groups:
            self._add_nodes(name, group, group.current_count)
        return cluster

    def settle(self) -> None:
        """Let SageMaker finish what it was asked: creations, scaling, deletions and software updates."""
        for name, cluster in list(self.clusters.items()):
            if cluster.status == "Deleting":
                del self.clusters[name]
                self.cluster_nodes.pop(name, None)
                continue
            groups = []
            for group in cluster.groups:
                if group.status == "Deleting":
                    self.cluster_nodes[name] = [node for node in self.nodes(name) if node.group != group.name]
                    continue
                nodes = [node for node in self.nodes(name) if node.group == group.name]
                self._add_nodes(name, group, group.target_count - len(nodes))
                surplus = {node.node_id for node in nodes[group.target_count :]}
                self.cluster_nodes[name] = [node for node in self.nodes(name) if node.node_id not in surplus]
                software = group.software_update_status
                groups.append(
                    replace(
                        group,
                        status="InService",
                        current_count=group.target_count,
                        scaling_operations=0,
                        software_update_status="Succeeded" if software == "InProgress" else software,
                        image_up_to_date=group.image_up_to_date or software == "InProgress",
                    )
                )
            settings = copy.deepcopy(cluster.settings)
            if "AutoScaling" in settings:
                settings["AutoScaling"]["Status"] = "InService"
            self.clusters[name] = replace(cluster, status="InService", groups=tuple(groups), settings=settings)

    def _add_nodes(self, cluster_name: str, group: InstanceGroup, count: int) -> None:
        for _ in range(max(count, 0)):
            self._next_node += 1
            self.cluster_nodes.setdefault(cluster_name, []).append(
                HyperPodNode(
                    node_id=f"i-{self._next_node:017x}",
                    group=group.name,
                    instance_type=group.instance_type or "",
                    status="Running",
                    message=None,
                    launch_time=None,
                    image_version=group.image_release_version,
                )
            )

    def _cluster(self, name: str) -> HyperPodCluster:
        cluster = self.clusters.get(name)
        if cluster is None:
            raise LookupError(f"ResourceNotFound: cluster {name}")
        return cluster

    def _put_groups(self, cluster: HyperPodCluster, groups: tuple[InstanceGroup, ...]) -> None:
        self.clusters[cluster.name] = replace(cluster, groups=groups)
