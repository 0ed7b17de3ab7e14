"""HyperPod clusters, instance groups, nodes and training plans as plain Python objects.

No moto and no wire shapes: :mod:`sandbox.aws.hyperpod.wire` turns SageMaker requests into these objects and
these objects into responses. What the simulation does not interpret (an execution role, storage configs, …)
rides along in ``echo``, exactly as the caller sent it, for DescribeCluster to return.
"""

from __future__ import annotations

import bisect
import heapq
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

JsonObject = dict[str, Any]

IMAGE_VERSION = "1.0.0"
# The newest HyperPod AMI release the sandbox offers: new groups start one release behind it.
LATEST_IMAGE_VERSION = "1.0.1"
IMAGE_ID = "ami-0a1b2c3d4e5f67890"
SCHEDULABLE = "Schedulable"
PENDING_REPLACEMENT = "UnschedulablePendingReplacement"


class HyperPodError(Exception):
    """A refusal by the service, with SageMaker's error code (``ValidationException``, ``ResourceNotFound``, …)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def validation(message: str) -> HyperPodError:
    return HyperPodError("ValidationException", message)


def image_status(version: str) -> str:
    return "UpToDate" if version == LATEST_IMAGE_VERSION else "UpdateAvailable"


@dataclass(frozen=True)
class Taint:
    key: str
    effect: str
    value: str | None = None


@dataclass(frozen=True)
class GroupSpec:
    """What a caller asks of one instance group (CreateCluster, UpdateCluster)."""

    name: str
    count: int
    instance_type: str | None = None
    instance_types: tuple[str, ...] = ()  # a flexible group (InstanceRequirements) instead of one instance type
    lifecycle_source: str | None = None
    capacity_types: tuple[str, ...] = ()  # "Spot" and/or "OnDemand", as requested
    deep_health_checks: bool = False
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    training_plan_arn: str | None = None
    subnets: tuple[str, ...] = ()  # overrides the cluster's subnets when given
    execution_role: str | None = None  # the role its instances run with (the wire always sends one)
    echo: JsonObject = field(default_factory=dict)

    @property
    def launch_type(self) -> str:
        """The instance type new nodes get."""
        return self.instance_type or (self.instance_types[0] if self.instance_types else "ml.m5.xlarge")

    @property
    def capacity_type(self) -> str:
        return "Spot" if "Spot" in self.capacity_types else "OnDemand"


@dataclass(frozen=True)
class ClusterSettings:
    """Cluster-level settings (CreateCluster, UpdateCluster) the simulation acts on."""

    subnets: tuple[str, ...] = ()
    eks_cluster_arn: str | None = None
    automatic_recovery: bool = True
    continuous: bool = False  # NodeProvisioningMode Continuous
    cluster_role: str | None = None
    autoscaling: bool | None = None  # None: never configured
    tiered_memory_percentage: int | None = None  # set when tiered storage is enabled with a percentage
    restricted_groups: bool = False
    echo: JsonObject = field(default_factory=dict)

    @property
    def eks_cluster_name(self) -> str | None:
        return self.eks_cluster_arn.rsplit("/", 1)[-1] if self.eks_cluster_arn else None


@dataclass
class Node:
    instance_id: str
    logical_id: str
    group: str
    instance_type: str
    subnet_id: str | None
    zone: str
    zone_id: str
    capacity_type: str
    private_ip: str
    launch_time: float
    image_version: str = IMAGE_VERSION
    # Running | Pending (rebooting) | ShuttingDown (replacing, deleting) | DeepHealthCheckInProgress
    status: str = "Running"
    message: str = ""
    health: str = SCHEDULABLE
    last_software_update: float | None = None
    # What the execution role does not allow the node (sandbox.aws.hyperpod.access): its kubelet is not Ready.
    missing_permissions: tuple[str, ...] = ()
    # A fault injected for its next deep health check: it fails, and HyperPod "reboot"s or "replace"s it.
    health_check_fault: str | None = None

    @property
    def kubernetes_name(self) -> str:
        return f"hyperpod-{self.instance_id}"


class ClusterNodes:
    """A cluster's nodes in launch order, indexed by instance id, by group and by subnet: finding a node, a group's
    nodes, a subnet's count and a page of ListClusterNodes cost what they return, not the cluster's size (at 5,000
    nodes every DescribeCluster counts each group's nodes and a listing takes 50 pages)."""

    def __init__(self) -> None:
        self._by_id: dict[str, Node] = {}
        self._by_group: dict[str, dict[str, Node]] = {}
        self._in_subnet: Counter[str | None] = Counter()
        self._ordered: list[Node] | None = None  # by launch time, kept until a node comes or goes

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Node]:
        """The nodes as they are now: a node added or removed meanwhile does not disturb the iteration."""
        return iter(self.ordered())

    def __contains__(self, node: object) -> bool:
        return isinstance(node, Node) and self._by_id.get(node.instance_id) is node

    def add(self, node: Node) -> None:
        self._by_id[node.instance_id] = node
        self._by_group.setdefault(node.group, {})[node.instance_id] = node
        self._in_subnet[node.subnet_id] += 1
        self._ordered = None

    def remove(self, node: Node) -> None:
        if node in self:
            del self._by_id[node.instance_id]
            del self._by_group[node.group][node.instance_id]
            self._in_subnet[node.subnet_id] -= 1
            self._ordered = None

    def get(self, instance_id: str) -> Node | None:
        return self._by_id.get(instance_id)

    def in_group(self, group: str) -> list[Node]:
        return list(self._by_group.get(group, {}).values())

    def in_subnet(self, subnet_id: str) -> int:
        return self._in_subnet[subnet_id]

    def ordered(self) -> list[Node]:
        """Every node by launch time."""
        if self._ordered is None:
            self._ordered = sorted(self._by_id.values(), key=_launched)
        return self._ordered

    def listed(self, group_contains: str | None = None, launched_after: float | None = None) -> list[Node]:
        """ListClusterNodes' nodes by launch time: of the groups whose name contains `group_contains`, launched after
        `launched_after`."""
        if group_contains:
            groups = [
                sorted(nodes.values(), key=_launched) for g, nodes in self._by_group.items() if group_contains in g
            ]
            nodes = list(heapq.merge(*groups, key=_launched))
        else:
            nodes = self.ordered()
        if launched_after is not None:
            nodes = nodes[bisect.bisect_right(nodes, launched_after, key=_launched) :]
        return nodes


def _launched(node: Node) -> float:
    return node.launch_time


@dataclass
class InstanceGroup:
    spec: GroupSpec
    target: int
    creating: bool = True
    deleting: bool = False
    scaling: int = 0  # updates in flight
    launched: int = 0  # nodes launched so far, to spread them over the group's subnets
    software_status: str | None = None
    software_pending: int = 0
    software_deployment: JsonObject | None = None
    image_version: str = IMAGE_VERSION
    desired_image_version: str = IMAGE_VERSION
    image_id: str = IMAGE_ID
    desired_image_id: str = IMAGE_ID
    current_labels: dict[str, str] = field(default_factory=dict)
    current_taints: tuple[Taint, ...] = ()

    @property
    def name(self) -> str:
        return self.spec.name


@dataclass
class Cluster:
    name: str
    arn: str
    account: str
    region: str
    created: float
    settings: ClusterSettings
    tags: dict[str, str] = field(default_factory=dict)
    groups: dict[str, InstanceGroup] = field(default_factory=dict)
    nodes: ClusterNodes = field(default_factory=ClusterNodes)
    creating: bool = True
    deleting: bool = False
    updating: int = 0
    system_updating: int = 0
    autoscaling_ready: bool = False
    failure_message: str | None = None
    reported_status: str | None = None  # the status its last Cluster State Change event carried
    # What ListClusterEvents and ListClusterOperations read (continuous provisioning only): ClusterEventDetail and
    # ClusterOperationSummary dicts, oldest first (times in epoch seconds).
    events: list[JsonObject] = field(default_factory=list)
    operations: list[JsonObject] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.deleting:
            return "Deleting"
        if self.failure_message:
            return "Failed"
        if self.creating:
            return "Creating"
        if self.system_updating:
            return "SystemUpdating"
        if self.updating and not self.settings.continuous:
            return "Updating"
        return "InService"

    @property
    def autoscaling_status(self) -> str | None:
        if self.settings.autoscaling is None:
            return None
        if self.deleting:
            return "Deleting"
        if self.autoscaling_ready:
            return "InService"
        return "Creating" if self.settings.autoscaling else "Deleting"

    def group_status(self, group: InstanceGroup) -> str:
        if group.deleting:
            return "Deleting"
        if self.failure_message:
            return "Failed"
        if group.creating:
            return "Creating"
        if group.software_pending:
            return "SystemUpdating"
        if group.scaling and not self.settings.continuous:
            return "Updating"
        return "InService"

    def group_nodes(self, group: str) -> list[Node]:
        return self.nodes.in_group(group)

    def running_nodes(self, group: str) -> list[Node]:
        """The nodes that count towards a group's CurrentCount (running or rebooting)."""
        return [node for node in self.group_nodes(group) if node.status in ("Running", "Pending")]

    def node(self, instance_id: str) -> Node | None:
        return self.nodes.get(instance_id)

    def training_plan_arns(self) -> list[str]:
        return sorted({g.spec.training_plan_arn for g in self.groups.values() if g.spec.training_plan_arn})


@dataclass(frozen=True)
class TrainingPlan:
    arn: str
    name: str
    instance_type: str
    count: int
    zone: str
    zone_id: str
    start: float
    duration_hours: int
    upfront_fee: str = "0.00"

    @property
    def end(self) -> float:
        return self.start + self.duration_hours * 3600


@dataclass
class ComputeQuota:
    """A team's compute quota on a cluster (task governance): the request's config and target as sent, a version
    that each update raises, and the scheduler resource status (Created, then Updated)."""

    quota_id: str
    arn: str
    name: str
    cluster_arn: str
    config: JsonObject
    team: str
    fair_share_weight: int | None
    activation: str
    description: str | None
    created: float
    modified: float
    version: int = 1
    status: str = "Created"


@dataclass
class SchedulerConfig:
    """A cluster's scheduler config (task governance): its priority classes, fair share and idle resource sharing as
    sent, versioned like a compute quota."""

    config_id: str
    arn: str
    name: str
    cluster_arn: str
    config: JsonObject
    description: str | None
    created: float
    modified: float
    version: int = 1
    status: str = "Created"


@dataclass(frozen=True)
class NodeFailure:
    node_id: str
    code: str
    message: str


@dataclass(frozen=True)
class BatchOutcome:
    """What a batch node action did: the ids it acted on and the in-band failures."""

    successful: list[str]
    failed: list[NodeFailure]
