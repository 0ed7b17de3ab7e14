"""The Kubernetes API of a cluster, and the manifests the control plane applies."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from controlplane.core.paging import Page
from controlplane.core.ports.eks import EksCluster


class ManifestRenderer(Protocol):
    def __call__(self, bundle: str, file: str, values: dict[str, str]) -> list[dict[str, Any]]:
        """The Kubernetes objects of a versioned manifest file, with its placeholders filled."""


@dataclass(frozen=True)
class NodeTaint:
    key: str
    value: str
    effect: str


@dataclass(frozen=True)
class KubernetesNode:
    name: str
    ready: bool
    schedulable: bool
    labels: dict[str, str]
    capacity: dict[str, str]
    allocatable: dict[str, str]
    # The kubelet's reason and message while the node is not Ready (`KubeletNotReady: container runtime network …`).
    not_ready_reason: str | None = None
    taints: tuple[NodeTaint, ...] = ()


@dataclass(frozen=True)
class DaemonPod:
    """A pod of a DaemonSet: its node, whether it is Ready, and the first container that waits, with its image and
    why it waits (`ImagePullBackOff`, …)."""

    name: str
    node: str | None
    ready: bool
    image: str | None = None
    waiting_reason: str | None = None
    waiting_message: str | None = None


@dataclass(frozen=True)
class WorkloadPods:
    """Workload pods found on some nodes. The read stops at the first page that holds any, so `complete` says
    whether every pod was looked at (and `names` is all of them) or there may be more."""

    names: tuple[str, ...]
    complete: bool


class KubernetesGateway(Protocol):
    def server_version(self, cluster: EksCluster, region: str) -> str:
        """Call the cluster's Kubernetes API through the production client path."""

    def apply(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        """Server-side apply each object (field manager `instantstart`); returns `Kind/namespace/name` of each."""

    def nodes(self, cluster: EksCluster, region: str, labels: Mapping[str, str] | None = None) -> list[KubernetesNode]:
        """The nodes (those carrying every one of `labels`, when given)."""

    def nodes_named(self, cluster: EksCluster, region: str, names: Sequence[str]) -> list[KubernetesNode]:
        """The nodes of these names that exist, each read by name (for a page of nodes, not the whole list)."""

    def present(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        """`Kind/namespace/name` of each object that exists in the cluster (by kind, namespace and name)."""

    def delete(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        """Delete each object that exists (absent ones are skipped); returns what was deleted."""

    def daemon_pods(
        self, cluster: EksCluster, region: str, namespace: str, labels: Mapping[str, str]
    ) -> list[DaemonPod]:
        """The namespace's pods carrying every one of `labels` (a DaemonSet's selector)."""

    def workload_pods(self, cluster: EksCluster, region: str, node_names: set[str]) -> WorkloadPods:
        """`namespace/name` of running pods on these nodes that belong to workloads (not DaemonSets or system
        namespaces), read node by node until the first ones turn up."""

    def get(
        self, cluster: EksCluster, region: str, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> dict[str, Any] | None:
        """The object as the API server returns it, or None if it (or its kind) does not exist."""


@dataclass(frozen=True)
class KubernetesPod:
    name: str
    node: str | None
    phase: str
    restarts: int


@dataclass(frozen=True)
class KubernetesEvent:
    type: str | None
    reason: str | None
    message: str | None
    at: str | None


@dataclass(frozen=True)
class ObjectPage:
    items: list[dict[str, Any]]
    next_token: str | None


class WorkloadGateway(Protocol):
    """Workload objects in one namespace (custom objects such as training jobs), their pods, events and logs.

    Objects are read and written as plain JSON; pods and events come back typed."""

    def create(self, cluster: EksCluster, region: str, obj: dict[str, Any]) -> bool:
        """Create the object; False when one of that name already exists."""

    def list_objects(
        self,
        cluster: EksCluster,
        region: str,
        api_version: str,
        kind: str,
        namespace: str | None,
        limit: int,
        token: str | None,
        name: str | None = None,
    ) -> ObjectPage:
        """A page of the kind's objects in the namespace (None: every namespace), only those called `name` when it is
        given (empty when the kind is not served)."""

    def delete_object(
        self, cluster: EksCluster, region: str, api_version: str, kind: str, namespace: str, name: str
    ) -> bool:
        """Delete the object (its dependents in the background); False when it did not exist."""

    def patch_object(self, cluster: EksCluster, region: str, obj: dict[str, Any]) -> bool:
        """Merge-patch the object `obj` names with `obj` (strict: an undeclared field is refused); False when it does
        not exist."""

    def pods(self, cluster: EksCluster, region: str, namespace: str, labels: Mapping[str, str]) -> list[KubernetesPod]:
        """The namespace's pods carrying every one of `labels`, by name."""

    def events(self, cluster: EksCluster, region: str, namespace: str, involved: str) -> list[KubernetesEvent]:
        """The namespace's events about the object named `involved`, oldest first."""

    def pod_log(
        self,
        cluster: EksCluster,
        region: str,
        namespace: str,
        pod: str,
        tail_lines: int | None,
        since_seconds: int | None,
    ) -> str | None:
        """The pod's log (its last `tail_lines` lines, those of the last `since_seconds` seconds); None once the pod
        is gone."""


@dataclass(frozen=True)
class PodFacts:
    """A pod as monitoring reads it: where it runs, its phase, the GPUs it asks for, and why it waits."""

    namespace: str
    name: str
    node: str | None
    phase: str
    gpus: int
    restarts: int
    created_at: str | None
    waiting_reason: str | None
    waiting_message: str | None


@dataclass(frozen=True)
class PodCounts:
    """One page of pods folded where it was parsed, with no record per pod: how many in each phase, the GPUs
    requested per (node, phase) by pods bound to a node, and the pending pods whole (the overview says why they
    wait)."""

    by_phase: dict[str, int]
    gpus: dict[tuple[str, str], int]
    pending: list[PodFacts]


@dataclass(frozen=True)
class ClusterEvent:
    namespace: str | None
    object: str  # Kind/name
    reason: str | None
    message: str | None
    at: str | None
    count: int
    uid: str | None = None
    node: str | None = None  # the Kubernetes node it is about or was reported from


class ClusterReadGateway(Protocol):
    """Whole-cluster reads for monitoring: raw JSON read in pages and translated item by item, so a caller that
    aggregates never holds the whole list."""

    def node_pages(self, cluster: EksCluster, region: str) -> Iterator[list[KubernetesNode]]:
        """Every node, a page at a time."""

    def pod_counts(self, cluster: EksCluster, region: str) -> Iterator[PodCounts]:
        """Every pod of every namespace, counted a page at a time."""

    def warning_event_pages(self, cluster: EksCluster, region: str) -> Iterator[list[ClusterEvent]]:
        """Every event of type Warning, a page at a time."""

    def pod_page(
        self,
        cluster: EksCluster,
        region: str,
        limit: int,
        token: str | None,
        namespace: str | None = None,
        phase: str | None = None,
        node: str | None = None,
    ) -> Page[PodFacts]:
        """One page of pods (filtered by the API server), with Kubernetes' own continue token; InvalidRequestError
        for a token the API server refuses."""


@dataclass(frozen=True)
class SecretFacts:
    """What the control plane learns of a Secret: its labels and the names of its keys, never a value."""

    labels: Mapping[str, str]
    keys: frozenset[str]


class SecretReadRefusedError(Exception):
    """The cluster's RBAC refuses reading Secrets in the namespace (its Secret reader Role is missing)."""


class SecretGateway(Protocol):
    """Secrets a request names, read as the jobs role, whose RBAC lets it get Secrets only where the control plane
    applied its Secret reader Role (`controlplane.core.storage.namespace.secret_reader_rbac`)."""

    def secret(self, cluster: EksCluster, region: str, namespace: str, name: str) -> SecretFacts | None:
        """The Secret's labels and key names; None when it does not exist; SecretReadRefusedError when RBAC
        refuses the read."""
