"""The instances behind HyperPod instance groups: where a node launches, and launching, terminating, replacing
and reconciling nodes, each mirrored as a ``Node`` object in the EKS cluster.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable
from typing import Protocol

from sandbox.aws.hyperpod import access
from sandbox.aws.hyperpod.access import Caller, RolePolicies
from sandbox.aws.hyperpod.kubernetes import HyperPodKubernetes
from sandbox.aws.hyperpod.model import (
    Cluster,
    ClusterSettings,
    GroupSpec,
    InstanceGroup,
    Node,
    TrainingPlan,
    validation,
)

Where = tuple[str, str]  # (account, region)


class Account(Protocol):
    """What HyperPod reads from the rest of the simulated AWS account (moto's in the sandbox, a fake in tests)."""

    def subnet_zone(self, where: Where, subnet_id: str) -> tuple[str, str]:
        """(zone, zone id) of a subnet; LookupError when there is no such subnet."""
        ...

    def zone_id(self, where: Where, zone: str) -> str: ...

    def eks_cluster(self, where: Where, name: str) -> tuple[str, str] | None:
        """(status, authentication mode) of an EKS cluster, None when there is none."""
        ...

    def eks_cluster_tags(self, where: Where, name: str) -> dict[str, str]:
        """The tags of an EKS cluster (none when there is no such cluster)."""
        ...

    def role_policies(self, where: Where, role_arn: str) -> RolePolicies | None:
        """An IAM role's identity policies and permissions boundary, None when there is no such role."""
        ...

    def caller(self, where: Where) -> Caller | None:
        """Who sent the request being served, when it is one of the control plane's functions (whose policies are
        known); None for anyone else."""
        ...


class Fleet:
    def __init__(
        self,
        kubernetes: HyperPodKubernetes,
        account: Account,
        plan: Callable[[Where, str | None], TrainingPlan | None],
    ) -> None:
        self._kubernetes = kubernetes
        self._account = account
        self._plan = plan

    def zones(self, where: Where, spec: GroupSpec, settings: ClusterSettings) -> list[tuple[str, str, str]]:
        """(subnet, zone, zone id) of the group's subnets (its own, else the cluster's)."""
        zones = []
        for subnet in spec.subnets or settings.subnets:
            try:
                zones.append((subnet, *self._account.subnet_zone(where, subnet)))
            except LookupError as error:
                raise validation(f"The subnet ID '{subnet}' does not exist.") from error
        return zones

    def reconcile(self, cluster: Cluster, group: InstanceGroup) -> None:
        """Bring the group's live nodes to its target count and its nodes to its Kubernetes config."""
        live = [node for node in cluster.group_nodes(group.name) if node.status != "ShuttingDown"]
        for _ in range(group.target - len(live)):
            self.launch(cluster, group)
        for node in reversed(live[group.target :]):
            self.terminate(cluster, node)
        self._kubernetes.apply_group_config(cluster, group)

    def launch(self, cluster: Cluster, group: InstanceGroup) -> Node:
        """A new node: in its training plan's zone, else round-robin over the group's subnets."""
        where = (cluster.account, cluster.region)
        zones = self.zones(where, group.spec, cluster.settings)
        plan = self._plan(where, group.spec.training_plan_arn)
        if plan is not None:
            subnet = next((s for s, zone, _ in zones if zone == plan.zone), None)
            zone, zone_id = plan.zone, plan.zone_id
        elif zones:
            subnet, zone, zone_id = zones[group.launched % len(zones)]
        else:
            subnet, zone, zone_id = None, f"{cluster.region}a", self._account.zone_id(where, "")
        group.launched += 1
        node = Node(
            instance_id="i-" + secrets.token_hex(9)[:17],
            logical_id="node-" + secrets.token_hex(8),
            group=group.name,
            instance_type=group.spec.launch_type,
            subnet_id=subnet,
            zone=zone,
            zone_id=zone_id,
            capacity_type=group.spec.capacity_type,
            private_ip=f"10.{random.randint(0, 255)}.{random.randint(0, 255)}.{random.randint(1, 254)}",
            launch_time=time.time(),
            image_version=group.image_version,
        )
        node.missing_permissions = self._missing_permissions(cluster, group.spec.execution_role)
        cluster.nodes.add(node)
        self._kubernetes.put_node(cluster, group, node)
        return node

    def recheck_permissions(self, cluster: Cluster) -> None:
        """A node whose role lacked what it needs becomes Ready once the role allows it (the CNI retries)."""
        for node in cluster.nodes:
            if not node.missing_permissions:
                continue
            group = cluster.groups.get(node.group)
            node.missing_permissions = self._missing_permissions(cluster, group.spec.execution_role if group else None)
            if not node.missing_permissions:
                self._kubernetes.set_network_ready(cluster, node)

    def _missing_permissions(self, cluster: Cluster, role_arn: str | None) -> tuple[str, ...]:
        """What the execution role does not allow a node of an EKS-orchestrated cluster (a group sent without a
        role is only possible outside botocore, which requires one: nothing is checked then)."""
        eks = cluster.settings.eks_cluster_name
        if role_arn is None or eks is None:
            return ()
        partition = cluster.arn.split(":")[1]
        requests = access.node_requests(partition, cluster.account, cluster.region, eks)
        return access.missing_permissions(
            self._account.role_policies((cluster.account, cluster.region), role_arn), requests
        )

    def terminate(self, cluster: Cluster, node: Node) -> None:
        cluster.nodes.remove(node)
        self._kubernetes.remove_node(cluster, node)

    def replace(self, cluster: Cluster, node: Node) -> Node | None:
        """A new instance in the node's place (None when the node or its group is already gone)."""
        group = cluster.groups.get(node.group)
        if node not in cluster.nodes or group is None:
            return None
        self.terminate(cluster, node)
        return self.launch(cluster, group)
