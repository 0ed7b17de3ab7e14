"""Workload objects, pods, events and logs of each cluster, over the objects of an `InMemoryKubernetesGateway`
(so a job created here is what that gateway's `get` finds)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import (
    KubernetesEvent,
    KubernetesPod,
    ObjectPage,
    SecretFacts,
    SecretReadRefusedError,
)
from tests.fakes.kubernetes import InMemoryKubernetesGateway, describe


@dataclass
class FakePod:
    namespace: str
    labels: dict[str, str]
    pod: KubernetesPod
    log: str = ""


@dataclass
class ClusterWorkloads:
    pods: list[FakePod] = field(default_factory=list)
    events: dict[tuple[str, str], list[KubernetesEvent]] = field(default_factory=dict)
    gone_pods: set[str] = field(default_factory=set)  # listed, but deleted before their log is read


class InMemoryWorkloadGateway:
    def __init__(self, kubernetes: InMemoryKubernetesGateway) -> None:
        self.kubernetes = kubernetes
        self.clusters: dict[str, ClusterWorkloads] = {}
        self.log_requests: list[tuple[str, int | None, int | None]] = []

    def of(self, cluster_name: str) -> ClusterWorkloads:
        return self.clusters.setdefault(cluster_name, ClusterWorkloads())

    def create(self, cluster: EksCluster, region: str, obj: dict[str, Any]) -> bool:
        objects = self.kubernetes.api(cluster.name).objects
        if describe(obj) in objects:
            return False
        objects[describe(obj)] = copy.deepcopy(obj)
        return True

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
        found = [
            copy.deepcopy(obj)
            for obj in self.kubernetes.api(cluster.name).objects.values()
            if obj["kind"] == kind
            and namespace in (None, obj["metadata"].get("namespace"))
            and name in (None, obj["metadata"]["name"])
        ]
        found.sort(key=lambda obj: obj["metadata"]["name"])
        start = int(token or 0)
        more = start + limit < len(found)
        return ObjectPage(found[start : start + limit], str(start + limit) if more else None)

    def delete_object(
        self, cluster: EksCluster, region: str, api_version: str, kind: str, namespace: str, name: str
    ) -> bool:
        key = describe({"kind": kind, "metadata": {"name": name, "namespace": namespace}})
        return self.kubernetes.api(cluster.name).objects.pop(key, None) is not None

    def patch_object(self, cluster: EksCluster, region: str, obj: dict[str, Any]) -> bool:
        objects = self.kubernetes.api(cluster.name).objects
        live = objects.get(describe(obj))
        if live is None:
            return False
        objects[describe(obj)] = _merged(live, obj)
        return True

    def pods(self, cluster: EksCluster, region: str, namespace: str, labels: Mapping[str, str]) -> list[KubernetesPod]:
        found = [
            fake.pod
            for fake in self.of(cluster.name).pods
            if fake.namespace == namespace and labels.items() <= fake.labels.items()
        ]
        return sorted(found, key=lambda pod: pod.name)

    def events(self, cluster: EksCluster, region: str, namespace: str, involved: str) -> list[KubernetesEvent]:
        return list(self.of(cluster.name).events.get((namespace, involved), []))

    def pod_log(
        self,
        cluster: EksCluster,
        region: str,
        namespace: str,
        pod: str,
        tail_lines: int | None,
        since_seconds: int | None,
    ) -> str | None:
        self.log_requests.append((pod, tail_lines, since_seconds))
        text = next((fake.log for fake in self.of(cluster.name).pods if fake.pod.name == pod), None)
        if text is None or pod in self.of(cluster.name).gone_pods:
            return None
        lines = text.splitlines(keepends=True)
        return "".join(lines[-tail_lines:] if tail_lines else lines)


class InMemorySecretGateway:
    """Secrets among an `InMemoryKubernetesGateway`'s objects, as the API server returns them (`stringData` folded
    into `data`); reads in `refused_namespaces` are refused as RBAC refuses them."""

    def __init__(self, kubernetes: InMemoryKubernetesGateway) -> None:
        self.kubernetes = kubernetes
        self.refused_namespaces: set[str] = set()

    def secret(self, cluster: EksCluster, region: str, namespace: str, name: str) -> SecretFacts | None:
        if namespace in self.refused_namespaces:
            raise SecretReadRefusedError(namespace)
        found = self.kubernetes.get(cluster, region, "v1", "Secret", name, namespace)
        if found is None:
            return None
        keys = {*(found.get("data") or {}), *(found.get("stringData") or {})}
        return SecretFacts(labels=dict(found["metadata"].get("labels") or {}), keys=frozenset(keys))


def _merged(live: Any, patch: Any) -> Any:
    """A JSON merge patch (RFC 7386) of `live` with `patch`."""
    if not isinstance(patch, dict) or not isinstance(live, dict):
        return copy.deepcopy(patch)
    merged = dict(live)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = _merged(live.get(key), value)
    return merged
