"""In-memory fakes of the other ports the HyperPod context uses, and a world that wires its services from them.

The HyperPod gateway's fake is `tests/fakes/hyperpod.py`. These others (network, IAM, EKS, buckets, Kubernetes,
persistence, account) are the small subset the HyperPod services call; they fold into `tests/fakes/` with the
fakes of the other contexts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from controlplane.core.clusters.registry import ClusterService
from controlplane.core.confirmations import Confirmations
from controlplane.core.hyperpod.group_steps import InstanceGroupSteps
from controlplane.core.hyperpod.groups import InstanceGroupService
from controlplane.core.hyperpod.nodes import NodeService
from controlplane.core.hyperpod.stage import HyperPodStageService
from controlplane.core.hyperpod_planning import HyperPodPlanner
from controlplane.core.operations.service import OperationService
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.ports.account import AvailabilityZone, TrainingPlan
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.iam import IamRole
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.core.ports.network import RouteTable, Subnet, Vpc
from controlplane.core.ports.persistence import Confirmation
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import ClusterBusyError, ClusterExistsError
from controlplane.models.operations import Operation, OperationKind
from tests.fakes.hyperpod import InMemoryHyperPodGateway

REGION = "us-west-2"
ACCOUNT = "123456789012"
POLL = PollSettings(first_wait_seconds=0, max_wait_seconds=0)


class FakeClock:
    def __init__(self) -> None:
        self.current = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self.current

    def sleep(self, seconds: float) -> None:
        self.current += timedelta(seconds=seconds)


class InMemoryClusterRegistry:
    def __init__(self) -> None:
        self.items: dict[str, ClusterRecord] = {}

    def find(self, cluster_tag: str) -> ClusterRecord | None:
        return self.items.get(cluster_tag)

    def list(self) -> list[ClusterRecord]:
        return list(self.items.values())

    def create(self, record: ClusterRecord) -> None:
        if record.clusterTag in self.items:
            raise ClusterExistsError("exists")
        self.items[record.clusterTag] = record

    def save(self, record: ClusterRecord) -> None:
        self.items[record.clusterTag] = record

    def acquire(self, cluster_tag: str, operation_id: str, now: datetime) -> None:
        record = self.items[cluster_tag]
        if record.activeOperationId not in (None, operation_id):
            raise ClusterBusyError("busy")
        self.items[cluster_tag] = record.model_copy(update={"activeOperationId": operation_id})

    def release(self, cluster_tag: str, operation_id: str, now: datetime) -> None:
        record = self.items.get(cluster_tag)
        if record is not None and record.activeOperationId == operation_id:
            self.items[cluster_tag] = record.model_copy(update={"activeOperationId": None})

    def delete(self, cluster_tag: str) -> None:
        self.items.pop(cluster_tag, None)


class InMemoryOperationRepository:
    def __init__(self) -> None:
        self.items: dict[str, Operation] = {}

    def create(self, operation: Operation) -> None:
        self.items[operation.operationId] = operation

    def find(self, operation_id: str) -> Operation | None:
        return self.items.get(operation_id)

    def replace(self, operation: Operation, expected_version: int) -> Operation:
        written = operation.model_copy(update={"version": expected_version + 1})
        self.items[operation.operationId] = written
        return written

    def list_for_cluster(self, cluster_tag: str, limit: int) -> list[Operation]:
        return [op for op in self.items.values() if op.target == cluster_tag][:limit]


class RecordingLauncher:
    def __init__(self) -> None:
        self.started: list[tuple[OperationKind, Mapping[str, Any]]] = []

    def start(self, kind: OperationKind, execution_name: str, payload: Mapping[str, Any]) -> str:
        self.started.append((kind, payload))
        return f"arn:aws:states:{REGION}:{ACCOUNT}:execution:sm:{execution_name}"

    def stop(self, execution_arn: str, cause: str) -> None:
        pass

    def failed_state(self, execution_arn: str) -> str | None:
        return None


class InMemoryConfirmationStore:
    def __init__(self) -> None:
        self.items: dict[str, Confirmation] = {}

    def put(self, confirmation: Confirmation) -> None:
        self.items[confirmation.token] = confirmation

    def take(self, token: str) -> Confirmation | None:
        return self.items.pop(token, None)


class FakeAccount:
    """us-west-2 with zones a-d; every instance type offered in a-c; training plans by ARN."""

    def __init__(self) -> None:
        self.plans: dict[str, TrainingPlan] = {}

    def account_id(self) -> str:
        return ACCOUNT

    def offerings(self, region: str, ec2_instance_types: list[str]) -> dict[str, list[str]]:
        return {name: [f"{region}a", f"{region}b", f"{region}c"] for name in ec2_instance_types}

    def training_plans(self, region: str) -> list[TrainingPlan]:
        return list(self.plans.values())

    def training_plan(self, region: str, arn: str) -> TrainingPlan | None:
        return self.plans.get(arn)

    def known_regions(self) -> frozenset[str]:
        return frozenset({REGION})

    def availability_zones(self, region: str) -> list[AvailabilityZone]:
        return [AvailabilityZone(f"{region}{letter}", f"usw2-az{i}") for i, letter in enumerate("abcd", 1)]

    def vpc_cidrs(self, region: str) -> dict[str, str]:
        return {}


class FakeNetwork:
    """One cluster's VPC, route tables, subnets (by key) and security group."""

    def __init__(self) -> None:
        self.vpc: Vpc | None = None
        self.route_tables: dict[str, RouteTable] = {}
        self.subnets: dict[str, Subnet] = {}
        self.security_group: str | None = None
        self.deleted: list[str] = []

    def find_vpc(self, cluster_tag: str) -> Vpc | None:
        return self.vpc

    def find_route_table(self, cluster_tag: str, role: str) -> RouteTable | None:
        return self.route_tables.get(role)

    def create_route_table(self, cluster_tag: str, role: str, vpc_id: str) -> RouteTable:
        table = RouteTable(route_table_id=f"rtb-{role}", routes={}, subnet_ids=frozenset())
        self.route_tables[role] = table
        return table

    def add_default_route(self, route_table_id: str, target_id: str) -> None:
        self._change_table(
            route_table_id, lambda table: replace(table, routes={**table.routes, "0.0.0.0/0": target_id})
        )

    def associate_route_table(self, route_table_id: str, subnet_id: str) -> None:
        self._change_table(route_table_id, lambda table: replace(table, subnet_ids=table.subnet_ids | {subnet_id}))

    def find_subnets(self, cluster_tag: str) -> dict[str, Subnet]:
        return dict(self.subnets)

    def vpc_subnet_cidrs(self, vpc_id: str) -> list[str]:
        return [subnet.cidr for subnet in self.subnets.values()]

    def create_subnet(
        self, cluster_tag: str, vpc_id: str, key: str, cidr: str, availability_zone: str, public: bool
    ) -> Subnet:
        subnet = Subnet(subnet_id=f"subnet-{key}", key=key, cidr=cidr, availability_zone=availability_zone)
        self.subnets[key] = subnet
        return subnet

    def delete_subnet(self, subnet_id: str) -> None:
        self.deleted.append(subnet_id)
        self.subnets = {key: subnet for key, subnet in self.subnets.items() if subnet.subnet_id != subnet_id}

    def find_security_group(self, cluster_tag: str) -> str | None:
        return self.security_group

    def _change_table(self, route_table_id: str, change: Any) -> None:
        self.route_tables = {
            role: change(table) if table.route_table_id == route_table_id else table
            for role, table in self.route_tables.items()
        }


class FakeIam:
    def __init__(self) -> None:
        self.roles: dict[str, IamRole] = {}

    def find_role(self, name: str) -> IamRole | None:
        return self.roles.get(name)

    def create_role(
        self, name: str, trust_policy: dict[str, Any], tags: dict[str, str], boundary_arn: str | None = None
    ) -> IamRole:
        role = IamRole(name=name, arn=f"arn:aws:iam::{ACCOUNT}:role/{name}", tags=dict(tags))
        self.roles[name] = role
        return role

    def attach_policy(self, role_name: str, policy_arn: str) -> None:
        role = self.roles[role_name]
        self.roles[role_name] = replace(role, attached_policy_arns=role.attached_policy_arns | {policy_arn})

    def delete_role(self, name: str) -> None:
        self.roles.pop(name, None)


class FakeEks:
    def __init__(self) -> None:
        self.clusters: dict[str, EksCluster] = {}
        self.pod_identities: dict[tuple[str, str, str], str] = {}

    def find_cluster(self, name: str) -> EksCluster | None:
        return self.clusters.get(name)

    def pod_identity_role(self, cluster_name: str, namespace: str, service_account: str) -> str | None:
        return self.pod_identities.get((cluster_name, namespace, service_account))

    def create_pod_identity_association(
        self, cluster_name: str, namespace: str, service_account: str, role_arn: str, tags: dict[str, str]
    ) -> None:
        self.pod_identities[(cluster_name, namespace, service_account)] = role_arn


class FakeBuckets:
    def __init__(self) -> None:
        self.tags: dict[str, dict[str, str]] = {}
        self.objects: dict[tuple[str, str], bytes] = {}

    def bucket_tags(self, bucket: str) -> dict[str, str] | None:
        return self.tags.get(bucket)

    def create_bucket(self, bucket: str, tags: dict[str, str]) -> None:
        self.tags[bucket] = dict(tags)

    def put_object(self, bucket: str, key: str, body: bytes) -> None:
        self.objects[(bucket, key)] = body

    def object_body(self, bucket: str, key: str) -> bytes | None:
        return self.objects.get((bucket, key))

    def delete_bucket(self, bucket: str) -> None:
        self.tags.pop(bucket, None)
        self.objects = {key: body for key, body in self.objects.items() if key[0] != bucket}


class FakeKubernetes:
    """Nodes of the cluster and the workload pods running on each node."""

    def __init__(self) -> None:
        self.node_list: list[KubernetesNode] = []
        self.pods: dict[str, list[str]] = {}

    def nodes(self, cluster: EksCluster, region: str) -> list[KubernetesNode]:
        return list(self.node_list)

    def workload_pods(self, cluster: EksCluster, region: str, node_names: set[str]) -> list[str]:
        return [pod for name in sorted(node_names) for pod in self.pods.get(name, [])]


def eks_cluster(name: str, status: str = "ACTIVE") -> EksCluster:
    return EksCluster(
        name=name,
        arn=f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{name}",
        status=status,
        version="1.32",
        endpoint="https://example.invalid",
        certificate_authority=None,
        oidc_issuer=None,
        authentication_mode="API",
    )


@dataclass
class World:
    """Every fake, and the HyperPod context's services wired from them as `controlplane.wiring` does."""

    hyperpod: InMemoryHyperPodGateway = field(default_factory=InMemoryHyperPodGateway)
    network: FakeNetwork = field(default_factory=FakeNetwork)
    iam: FakeIam = field(default_factory=FakeIam)
    eks: FakeEks = field(default_factory=FakeEks)
    buckets: FakeBuckets = field(default_factory=FakeBuckets)
    kubernetes: FakeKubernetes = field(default_factory=FakeKubernetes)
    registry: InMemoryClusterRegistry = field(default_factory=InMemoryClusterRegistry)
    launcher: RecordingLauncher = field(default_factory=RecordingLauncher)
    account: FakeAccount = field(default_factory=FakeAccount)
    clock: FakeClock = field(default_factory=FakeClock)

    def __post_init__(self) -> None:
        self.confirmations = Confirmations(InMemoryConfirmationStore(), self.clock)
        self.operations = OperationService(
            InMemoryOperationRepository(), self.registry, self.launcher, self.account, self.clock
        )
        self.clusters = ClusterService(
            self.registry, lambda region: self.eks, lambda region: self.hyperpod, self.kubernetes, self.clock
        )

    def instance_groups(self) -> InstanceGroupService:
        return InstanceGroupService(
            self.clusters,
            self.operations,
            HyperPodPlanner(self.account),
            self.confirmations,
            lambda region: self.hyperpod,
            lambda region: self.eks,
            self.kubernetes,
        )

    def nodes(self) -> NodeService:
        return NodeService(
            self.clusters, self.confirmations, lambda region: self.hyperpod, lambda region: self.eks, self.kubernetes
        )

    def group_steps(self) -> InstanceGroupSteps:
        return InstanceGroupSteps(self.network, self.iam, self.hyperpod, Poller(POLL, self.clock))

    def stage(self) -> HyperPodStageService:
        return HyperPodStageService(
            self.network, self.iam, self.eks, self.hyperpod, self.buckets, Poller(POLL, self.clock)
        )
