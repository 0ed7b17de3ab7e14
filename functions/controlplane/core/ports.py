"""Ports: what the core needs from the outside world, as Protocols that adapters implement.

Value types returned by gateways live here too; they are plain dataclasses, not SDK shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from controlplane.models.audit import AuditEntry
from controlplane.models.clusters import ClusterRecord
from controlplane.models.operations import Operation, OperationKind

# --- persistence ------------------------------------------------------------------------------


class OperationRepository(Protocol):
    def create(self, operation: Operation) -> None:
        """Insert; raises StaleVersionError if the id exists."""

    def find(self, operation_id: str) -> Operation | None: ...

    def replace(self, operation: Operation, expected_version: int) -> Operation:
        """Write `operation` with version+1 only if the stored version is `expected_version`."""

    def list_for_cluster(self, cluster_tag: str, limit: int) -> list[Operation]: ...


class ClusterRegistry(Protocol):
    def find(self, cluster_tag: str) -> ClusterRecord | None: ...

    def list(self) -> list[ClusterRecord]: ...

    def create(self, record: ClusterRecord) -> None:
        """Insert; raises ClusterExistsError if the tag is taken."""

    def save(self, record: ClusterRecord) -> None: ...

    def acquire(self, cluster_tag: str, operation_id: str, now: datetime) -> None:
        """Mark `operation_id` as the cluster's one active operation; ClusterBusyError if another holds it."""

    def release(self, cluster_tag: str, operation_id: str, now: datetime) -> None:
        """Clear the active operation if it is `operation_id` (no-op otherwise)."""

    def delete(self, cluster_tag: str) -> None: ...


class AuditLog(Protocol):
    def record(self, entry: AuditEntry) -> None: ...


@dataclass(frozen=True)
class Confirmation:
    token: str
    principal: str
    action: str
    target: str
    expires_at: datetime


class ConfirmationStore(Protocol):
    def put(self, confirmation: Confirmation) -> None: ...

    def take(self, token: str) -> Confirmation | None:
        """Remove and return the confirmation (single use), or None if unknown."""


class WorkflowLauncher(Protocol):
    def start(self, kind: OperationKind, execution_name: str, payload: Mapping[str, Any]) -> str:
        """Start the workflow; same name and payload returns the existing execution's ARN."""

    def stop(self, execution_arn: str, cause: str) -> None: ...

    def failed_state(self, execution_arn: str) -> str | None:
        """The name of the state whose task failed last in the execution."""


class Clock(Protocol):
    def now(self) -> datetime: ...

    def sleep(self, seconds: float) -> None: ...


# --- AWS account ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AvailabilityZone:
    name: str
    zone_id: str


@dataclass(frozen=True)
class TrainingPlan:
    arn: str
    name: str
    status: str
    instance_type: str | None
    instance_count: int
    availability_zone: str | None


@dataclass(frozen=True)
class HyperPodCluster:
    name: str
    arn: str
    status: str
    failure_message: str | None
    groups: tuple[dict[str, Any], ...]
    tags: dict[str, str] = field(default_factory=dict)
    subnet_ids: tuple[str, ...] = ()
    security_group_ids: tuple[str, ...] = ()
    # Cluster-level settings as DescribeCluster reports them (TieredStorageConfig, AutoScaling, ClusterRole, ...).
    settings: dict[str, Any] = field(default_factory=dict)

    def group(self, name: str) -> dict[str, Any] | None:
        """The group's ClusterInstanceGroupDetails as DescribeCluster returns them."""
        return next((group for group in self.groups if group.get("InstanceGroupName") == name), None)

    eks_cluster_arn: str | None = None


@dataclass(frozen=True)
class Vpc:
    vpc_id: str
    cidr: str
    tags: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Subnet:
    subnet_id: str
    key: str
    cidr: str
    availability_zone: str


@dataclass(frozen=True)
class InternetGateway:
    gateway_id: str
    attached_vpc_id: str | None


@dataclass(frozen=True)
class NatGateway:
    gateway_id: str
    state: str


@dataclass(frozen=True)
class RouteTable:
    route_table_id: str
    routes: dict[str, str]
    subnet_ids: frozenset[str]
    main: bool = False


@dataclass(frozen=True)
class IamRole:
    name: str
    arn: str
    tags: dict[str, str]
    attached_policy_arns: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ManagedPolicy:
    name: str
    arn: str
    tags: dict[str, str]
    attachments: int


@dataclass(frozen=True)
class EksCluster:
    name: str
    arn: str
    status: str
    version: str | None
    endpoint: str | None
    certificate_authority: str | None
    oidc_issuer: str | None
    authentication_mode: str | None
    tags: dict[str, str] = field(default_factory=dict)
    vpc_id: str | None = None
    subnet_ids: tuple[str, ...] = ()
    security_group_ids: tuple[str, ...] = ()
    cluster_security_group_id: str | None = None


class AccountGateway(Protocol):
    """Facts about the account and Region that requests are validated against."""

    def account_id(self) -> str: ...

    def offerings(self, region: str, ec2_instance_types: list[str]) -> dict[str, list[str]]:
        """EC2 instance type → the Region's AZs that offer it (HyperPod ml.<type> follows them)."""

    def training_plans(self, region: str) -> list[TrainingPlan]: ...

    def training_plan(self, region: str, arn: str) -> TrainingPlan | None: ...

    def known_regions(self) -> frozenset[str]: ...

    def availability_zones(self, region: str) -> list[AvailabilityZone]: ...

    def vpc_cidrs(self, region: str) -> dict[str, str]:
        """VPC id → CIDR for every VPC in the Region (all associated IPv4 blocks)."""


class NetworkGateway(Protocol):
    """EC2 networking in one Region; resources are found by the cluster's ownership tags."""

    def find_vpc(self, cluster_tag: str) -> Vpc | None: ...

    def vpc(self, vpc_id: str) -> Vpc | None:
        """Any VPC by id, ours or not (imported clusters keep theirs)."""

    def vpc_route_tables(self, vpc_id: str) -> list[RouteTable]:
        """Every route table of the VPC, ours or not."""

    def tag_resource(self, resource_id: str, tags: dict[str, str]) -> None: ...

    def untag_resource(self, resource_id: str, keys: list[str]) -> None: ...

    def create_vpc(self, cluster_tag: str, cidr: str) -> Vpc: ...

    def delete_vpc(self, vpc_id: str) -> None: ...

    def find_subnets(self, cluster_tag: str) -> dict[str, Subnet]: ...

    def vpc_subnet_cidrs(self, vpc_id: str) -> list[str]:
        """CIDRs of every subnet in the VPC, ours or not."""

    def create_subnet(
        self, cluster_tag: str, vpc_id: str, key: str, cidr: str, availability_zone: str, public: bool
    ) -> Subnet: ...

    def delete_subnet(self, subnet_id: str) -> None: ...

    def find_internet_gateway(self, cluster_tag: str) -> InternetGateway | None: ...

    def create_internet_gateway(self, cluster_tag: str) -> InternetGateway: ...

    def attach_internet_gateway(self, gateway_id: str, vpc_id: str) -> None: ...

    def delete_internet_gateway(self, gateway: InternetGateway) -> None: ...

    def find_elastic_ip(self, cluster_tag: str) -> str | None: ...

    def allocate_elastic_ip(self, cluster_tag: str) -> str: ...

    def release_elastic_ip(self, allocation_id: str) -> None: ...

    def find_nat_gateway(self, cluster_tag: str) -> NatGateway | None:
        """The cluster's NAT gateway unless deleted."""

    def create_nat_gateway(self, cluster_tag: str, subnet_id: str, allocation_id: str) -> NatGateway: ...

    def delete_nat_gateway(self, gateway_id: str) -> None: ...

    def find_route_table(self, cluster_tag: str, role: str) -> RouteTable | None: ...

    def create_route_table(self, cluster_tag: str, role: str, vpc_id: str) -> RouteTable: ...

    def add_default_route(self, route_table_id: str, target_id: str) -> None: ...

    def associate_route_table(self, route_table_id: str, subnet_id: str) -> None: ...

    def delete_route_table(self, route_table_id: str) -> None: ...

    def find_s3_endpoint(self, cluster_tag: str) -> str | None: ...

    def create_s3_endpoint(self, cluster_tag: str, vpc_id: str, route_table_ids: list[str]) -> str: ...

    def delete_endpoint(self, endpoint_id: str) -> None: ...

    def find_security_group(self, cluster_tag: str) -> str | None: ...

    def create_security_group(self, cluster_tag: str, vpc_id: str) -> str: ...

    def allow_traffic_within_group(self, group_id: str) -> None: ...

    def delete_security_group(self, group_id: str) -> None: ...


class IamGateway(Protocol):
    def find_role(self, name: str) -> IamRole | None: ...

    def create_role(
        self, name: str, trust_policy: dict[str, Any], tags: dict[str, str], boundary_arn: str | None = None
    ) -> IamRole:
        """Create the role; workload roles (IRSA) pass the stack's permissions boundary."""

    def attach_policy(self, role_name: str, policy_arn: str) -> None: ...

    def role_policy(self, role_name: str, policy_name: str) -> dict[str, Any] | None:
        """The role's inline policy document, or None."""

    def put_role_policy(self, role_name: str, policy_name: str, document: dict[str, Any]) -> None: ...

    def list_oidc_providers(self) -> list[str]: ...

    def find_oidc_provider(self, issuer_url: str) -> str | None:
        """ARN of the IAM OIDC provider for an issuer URL, or None."""

    def create_oidc_provider(self, issuer_url: str, tags: dict[str, str]) -> str: ...

    def oidc_provider_tags(self, arn: str) -> dict[str, str]: ...

    def delete_oidc_provider(self, arn: str) -> None: ...

    def delete_role(self, name: str) -> None:
        """Detach managed policies, delete inline policies, then delete the role."""

    def find_policy(self, arn: str) -> ManagedPolicy | None:
        """The customer managed policy, or None."""

    def create_policy(self, name: str, document: dict[str, Any], tags: dict[str, str]) -> str:
        """Create a customer managed policy; returns its ARN."""

    def delete_policy(self, arn: str) -> None:
        """Delete the policy (its non-default versions first); absent is fine."""


class EksGateway(Protocol):
    def find_cluster(self, name: str) -> EksCluster | None: ...

    def create_cluster(
        self,
        name: str,
        version: str,
        role_arn: str,
        subnet_ids: list[str],
        security_group_ids: list[str],
        tags: dict[str, str],
    ) -> EksCluster: ...

    def delete_cluster(self, name: str) -> None: ...

    def access_entry_policies(self, cluster_name: str, principal_arn: str) -> frozenset[str] | None:
        """Policy ARNs associated with the principal's access entry, or None without an entry."""

    def create_access_entry(self, cluster_name: str, principal_arn: str, tags: dict[str, str]) -> None: ...

    def associate_admin_policy(self, cluster_name: str, principal_arn: str) -> None: ...

    def access_entry_tags(self, cluster_name: str, principal_arn: str) -> dict[str, str] | None:
        """The tags of the principal's access entry, or None without an entry."""

    def delete_access_entry(self, cluster_name: str, principal_arn: str) -> None:
        """Remove the entry (absent is fine)."""

    def tag_cluster(self, cluster_arn: str, tags: dict[str, str]) -> None: ...

    def untag_cluster(self, cluster_arn: str, keys: list[str]) -> None: ...

    def find_addon(self, cluster_name: str, addon_name: str) -> Addon | None: ...

    def create_addon(
        self,
        cluster_name: str,
        addon_name: str,
        version: str,
        role_arn: str | None,
        tags: dict[str, str],
        *,
        configuration: str | None = None,
        pod_identities: dict[str, str] | None = None,
    ) -> Addon:
        """CreateAddon; `pod_identities` maps service account → role ARN (associations owned by the add-on)."""

    def delete_addon(self, cluster_name: str, addon_name: str) -> None: ...

    def pod_identity_role(self, cluster_name: str, namespace: str, service_account: str) -> str | None:
        """Role ARN of the pod identity association for a ServiceAccount, or None."""

    def create_pod_identity_association(
        self, cluster_name: str, namespace: str, service_account: str, role_arn: str, tags: dict[str, str]
    ) -> None: ...

    def delete_pod_identity_association(self, cluster_name: str, namespace: str, service_account: str) -> None:
        """Remove the ServiceAccount's association (absent is fine)."""


@dataclass(frozen=True)
class Addon:
    name: str
    status: str
    version: str | None
    issues: tuple[str, ...] = ()
    tags: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class InstanceGroupSpec:
    name: str
    instance_type: str
    count: int
    execution_role_arn: str
    lifecycle_uri: str
    threads_per_core: int
    ebs_volume_gb: int
    deep_health_checks: bool
    capacity_type: str
    training_plan_arn: str | None = None
    subnet_ids: tuple[str, ...] = ()
    min_count: int | None = None
    network_interface: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()


@dataclass(frozen=True)
class Taint:
    key: str
    value: str | None
    effect: str


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

    def nodes(self, cluster_name: str) -> list[HyperPodNode]:
        """ListClusterNodes; none when the cluster does not exist."""

    def node_action(self, cluster_name: str, action: str, node_ids: list[str]) -> NodeActionOutcome:
        """BatchReboot/BatchReplace/BatchDeleteClusterNodes; failures are reported per node, not raised."""

    def update_software(
        self, cluster_name: str, groups: list[str], image_id: str | None, rolling: RollingUpdate
    ) -> None: ...

    def update_settings(self, name: str, settings: dict[str, Any]) -> None:
        """UpdateCluster with only the given cluster-level settings (no instance group changes)."""


class BucketGateway(Protocol):
    def bucket_tags(self, bucket: str) -> dict[str, str] | None:
        """The bucket's tags, or None if the bucket does not exist (or is not ours to read)."""

    def create_bucket(self, bucket: str, tags: dict[str, str]) -> None:
        """Private, encrypted, TLS-only bucket in the gateway's Region."""

    def put_object(self, bucket: str, key: str, body: bytes) -> None: ...

    def object_body(self, bucket: str, key: str) -> bytes | None: ...

    def delete_bucket(self, bucket: str) -> None:
        """Delete every object version, then the bucket; absent is fine."""


@dataclass(frozen=True)
class LustreFileSystem:
    file_system_id: str
    lifecycle: str
    dns_name: str | None
    mount_name: str | None
    storage_capacity_gib: int
    tags: dict[str, str]
    failure: str | None = None


@dataclass(frozen=True)
class LustreSpec:
    storage_capacity_gib: int
    deployment_type: str
    per_unit_storage_throughput: int | None
    subnet_id: str
    security_group_ids: tuple[str, ...]
    tags: dict[str, str]
    client_token: str


class FileSystemGateway(Protocol):
    """FSx for Lustre file systems in one Region, found by their tags."""

    def lustre_file_systems(self, tags: dict[str, str]) -> list[LustreFileSystem]:
        """Every Lustre file system carrying all of `tags`, in any lifecycle (DELETING included)."""

    def create_lustre(self, spec: LustreSpec) -> LustreFileSystem: ...

    def delete_file_system(self, file_system_id: str) -> None:
        """Delete without a final backup; absent is fine."""


class ManifestRenderer(Protocol):
    def __call__(self, bundle: str, file: str, values: dict[str, str]) -> list[dict[str, Any]]:
        """The Kubernetes objects of a versioned manifest file, with its placeholders filled."""


@dataclass(frozen=True)
class KubernetesNode:
    name: str
    ready: bool
    schedulable: bool
    labels: dict[str, str]
    capacity: dict[str, str]
    allocatable: dict[str, str]


class KubernetesGateway(Protocol):
    def server_version(self, cluster: EksCluster, region: str) -> str:
        """Call the cluster's Kubernetes API through the production client path."""

    def apply(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        """Server-side apply each object (field manager `instantstart`); returns `Kind/namespace/name` of each."""

    def nodes(self, cluster: EksCluster, region: str) -> list[KubernetesNode]: ...

    def present(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        """`Kind/namespace/name` of each object that exists in the cluster (by kind, namespace and name)."""

    def delete(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        """Delete each object that exists (absent ones are skipped); returns what was deleted."""

    def workload_pods(self, cluster: EksCluster, region: str, node_names: set[str]) -> list[str]:
        """`namespace/name` of running pods on these nodes that belong to workloads (not DaemonSets or kube-system)."""

    def get(
        self, cluster: EksCluster, region: str, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> dict[str, Any] | None:
        """The object as the API server returns it, or None if it (or its kind) does not exist."""
