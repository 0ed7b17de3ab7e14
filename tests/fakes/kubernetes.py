"""The Kubernetes API of each cluster: objects by kind, namespace and name (server-side apply replaces), nodes,
the running pods on them and the labelled pods of DaemonSets; plus a manifest renderer that returns fixed objects."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import DaemonPod, KubernetesNode, WorkloadPods

SERVER_VERSION = "v1.34.1-eks"


@dataclass
class Pod:
    namespace: str
    name: str
    node: str
    workload: bool = True


@dataclass
class LabelledPod:
    namespace: str
    labels: dict[str, str]
    pod: DaemonPod


@dataclass
class ClusterApi:
    objects: dict[str, dict[str, Any]] = field(default_factory=dict)
    nodes: list[KubernetesNode] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    daemon_pods: list[LabelledPod] = field(default_factory=list)


def describe(obj: dict[str, Any]) -> str:
    """`Kind/namespace/name`, as the gateway names objects."""
    metadata = obj.get("metadata", {})
    namespace = metadata.get("namespace")
    return f"{obj['kind']}/{namespace + '/' if namespace else ''}{metadata['name']}"


class InMemoryKubernetesGateway:
    def __init__(self) -> None:
        self.clusters: dict[str, ClusterApi] = {}

    def api(self, cluster_name: str) -> ClusterApi:
        return self.clusters.setdefault(cluster_name, ClusterApi())

    def server_version(self, cluster: EksCluster, region: str) -> str:
        return SERVER_VERSION

    def apply(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        store = self.api(cluster.name).objects
        for obj in objects:
            store[describe(obj)] = copy.deepcopy(obj)
        return [describe(obj) for obj in objects]

    def nodes(self, cluster: EksCluster, region: str, labels: Mapping[str, str] | None = None) -> list[KubernetesNode]:
        wanted = (labels or {}).items()
        return [node for node in self.api(cluster.name).nodes if wanted <= node.labels.items()]

    def nodes_named(self, cluster: EksCluster, region: str, names: Sequence[str]) -> list[KubernetesNode]:
        wanted = set(names)
        return [node for node in self.api(cluster.name).nodes if node.name in wanted]

    def present(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        store = self.api(cluster.name).objects
        return [describe(obj) for obj in objects if describe(obj) in store]

    def delete(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        store = self.api(cluster.name).objects
        deleted = []
        for obj in reversed(objects):
            if store.pop(describe(obj), None) is not None:
                deleted.append(describe(obj))
        return deleted

    def daemon_pods(
        self, cluster: EksCluster, region: str, namespace: str, labels: Mapping[str, str]
    ) -> list[DaemonPod]:
        return [
            entry.pod
            for entry in self.api(cluster.name).daemon_pods
            if entry.namespace == namespace and labels.items() <= entry.labels.items()
        ]

    def workload_pods(self, cluster: EksCluster, region: str, node_names: set[str]) -> WorkloadPods:
        found = [
            f"{pod.namespace}/{pod.name}"
            for pod in self.api(cluster.name).pods
            if pod.workload and pod.node in node_names
        ]
        return WorkloadPods(tuple(found), complete=True)

    def get(
        self, cluster: EksCluster, region: str, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> dict[str, Any] | None:
        key = describe({"kind": kind, "metadata": {"name": name, "namespace": namespace}})
        found = self.api(cluster.name).objects.get(key)
        return copy.deepcopy(found) if found is not None else None


class FixedManifests:
    """A `ManifestRenderer`: each (bundle, file) renders to the objects given, with `${name}` values filled in."""

    def __init__(self, files: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
        self.files = files
        self.rendered: list[tuple[str, str, dict[str, str]]] = []

    def __call__(self, bundle: str, file: str, values: dict[str, str]) -> list[dict[str, Any]]:
        self.rendered.append((bundle, file, dict(values)))
        objects = copy.deepcopy(self.files[(bundle, file)])
        for obj in objects:
            obj.setdefault("metadata", {}).setdefault("annotations", {}).update(values)
        return objects
