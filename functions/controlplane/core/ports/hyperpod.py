"""SageMaker HyperPod clusters, instance groups and nodes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from controlplane.core.paging import Page
from controlplane.models.hyperpod import CapacityType, NetworkInterfaceType, TaintEffect


@dataclass(frozen=True)
class Taint:
    key: str
    value: str | None
    effect: TaintEffect


@dataclass(frozen=True)
class InstanceGroup:
    """One instance group as HyperPod reports it now: its configuration and where it stands."""

    name: str
    instance_type: str | None
    status: str | None
    current_count: int
    target_count: int
    min_count: int | None = None
    capacity_type: CapacityType = "on-demand"
    training_plan_arn: str | None = None
    network_interface: NetworkInterfaceType | None = None
    # The group's own subnets (an override of the cluster's VPC config); empty means the cluster's.
    subnet_ids: tuple[str, ...] = ()
    deep_health_checks: bool = False
    ebs_volume_gb: int | None = None
    threads_per_core: int | None = None
    # The Kubernetes labels and taints HyperPod is asked to keep on the group's nodes.
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    image_release_version: str | None = None
    desired_image_id: str | None = None
    image_up_to_date: bool = False
    software_update_status: str | None = None
    scaling_operations: int = 0


@dataclass(frozen=True)
class HyperPodCluster:
    name: str
    arn: str
    status: str
    failure_message: str | None
    groups: tuple[InstanceGroup, ...]
    tags: dict[str, str] = field(default_factory=dict)
    subnet_ids: tuple[str, ...] = ()
    security_group_ids: tuple[str, ...] = ()
    # Cluster-level settings as DescribeCluster reports them (TieredStorageConfig, AutoScaling, ClusterRole, ...).
    settings: dict[str, Any] = field(default_factory=dict)
    eks_cluster_arn: str | None = None

    def group(self, name: str) -> InstanceGroup | None:
        return next((group for group in self.groups if group.name == name), None)


@dataclass(frozen=True)
class InstanceGroupSpec:
    """A group to create: the first one of a new cluster, or one added later."""

    name: str
    instance_type: str
    count: int
    execution_role_arn: str
    lifecycle_uri: str
    threads_per_core: int
    ebs_volume_gb: int
    deep_health_checks: bool
    capacity_type: CapacityType
    training_plan_arn: str | None = None
    subnet_ids: tuple[str, ...] = ()
    min_count: int | None = None
    network_interface: NetworkInterfaceType | None = None
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()


@dataclass(frozen=True)
class GroupChange:
    """Fields to change on an existing group; None keeps the live value."""

    count: int | None = None
    min_count: int | None = None
    labels: dict[str, str] | None = None
    taints: tuple[Taint, ...] | None = None
    deep_health_checks: bool | None = None


@dataclass(frozen=True)
class HyperPodNode:
    node_id: str
    group: str
    instance_type: str
    status: str
    message: str | None
    launch_time: datetime | None
    image_version: str | None


@dataclass(frozen=True)
class NodeFailure:
    node_id: str
    code: str
    message: str


@dataclass(frozen=True)
class NodeActionOutcome:
    successful: tuple[str, ...]
    failed: tuple[NodeFailure, ...]


@dataclass(frozen=True)
class RollingUpdate:
    """UpdateClusterSoftware's rolling policy: batch by instance count or capacity percentage."""

    batch_type: str
    batch_size: int
    wait_seconds: int


@dataclass(frozen=True)
class HyperPodClusterSpec:
    name: str
    eks_cluster_arn: str
    subnet_ids: tuple[str, ...]
    security_group_ids: tuple[str, ...]
    groups: tuple[InstanceGroupSpec, ...]
    tags: dict[str, str]
    node_recovery: str = "Automatic"


class HyperPodGateway(Protocol):
    def find_cluster(self, name: str) -> HyperPodCluster | None: ...

    def create_cluster(self, spec: HyperPodClusterSpec) -> str:
        """CreateCluster (EKS orchestrator, continuous provisioning); returns the cluster ARN."""

    def delete_cluster(self, name: str) -> None: ...

    def add_group(self, cluster_name: str, group: InstanceGroupSpec, security_group_ids: tuple[str, ...]) -> None:
        """UpdateCluster with one new group; the other groups are not sent, so they cannot change."""

    def update_group(self, cluster_name: str, group_name: str, change: GroupChange) -> None:
        """Resend the group's live configuration with only `change` applied (nothing else may be lost)."""

    def delete_group(self, cluster_name: str, group_name: str) -> None:
        """UpdateCluster with InstanceGroupsToDelete."""

    def node_page(self, cluster_name: str, limit: int, token: str | None = None) -> Page[HyperPodNode]:
        """One page of ListClusterNodes (oldest first); an empty page when the cluster does not exist."""

    def node(self, cluster_name: str, node_id: str) -> HyperPodNode | None:
        """DescribeClusterNode; None when the node (or the cluster) does not exist."""

    def group_nodes_since(self, cluster_name: str, group: str, since: datetime) -> list[HyperPodNode]:
        """The group's nodes launched after `since` (ListClusterNodes filtered by group and creation time), oldest
        first; empty when the cluster does not exist."""

    def node_action(self, cluster_name: str, action: str, node_ids: list[str]) -> NodeActionOutcome:
        """BatchReboot/BatchReplace/BatchDeleteClusterNodes; failures are reported per node, not raised."""

    def update_software(
        self, cluster_name: str, groups: list[str], image_id: str | None, rolling: RollingUpdate
    ) -> None: ...

    def start_health_check(self, cluster_name: str, nodes: dict[str, list[str]], checks: list[str]) -> None:
        """StartClusterHealthCheck: the deep health `checks` on the given nodes, by instance group."""

    def update_settings(self, name: str, settings: dict[str, Any]) -> None:
        """UpdateCluster with only the given cluster-level settings (no instance group changes)."""
