"""Model servers' objects by label, merge patches and calls to a Service, over the objects of an
`InMemoryKubernetesGateway` (so what `create` made there is what `select` finds); the Services answer with what a
test queued."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import ObjectPage
from controlplane.core.ports.serving import HttpAnswer
from tests.fakes.kubernetes import InMemoryKubernetesGateway, describe


def _merge(target: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """JSON merge patch (RFC 7386): None removes a key, objects merge, anything else replaces."""
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)
    return target


class InMemoryServingGateway:
    def __init__(self, kubernetes: InMemoryKubernetesGateway) -> None:
        self.kubernetes = kubernetes
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.answer = HttpAnswer(200, '{"model": "m", "choices": [{"message": {"content": "hello"}}]}')

    def select(
        self,
        cluster: EksCluster,
        region: str,
        api_version: str,
        kind: str,
        namespace: str | None,
        labels: Mapping[str, str | None],
        limit: int,
        token: str | None,
    ) -> ObjectPage:
        def matches(obj: dict[str, Any]) -> bool:
            have = obj["metadata"].get("labels") or {}
            return all(key in have and (value is None or have[key] == value) for key, value in labels.items())

        found = [
            copy.deepcopy(obj)
            for obj in self.kubernetes.api(cluster.name).objects.values()
            if obj["kind"] == kind and namespace in (None, obj["metadata"].get("namespace")) and matches(obj)
        ]
        found.sort(key=lambda obj: obj["metadata"]["name"])
        start = int(token or 0)
        more = start + limit < len(found)
        return ObjectPage(found[start : start + limit], str(start + limit) if more else None)

    def patch(
        self,
        cluster: EksCluster,
        region: str,
        api_version: str,
        kind: str,
        namespace: str,
        name: str,
        patch: dict[str, Any],
    ) -> dict[str, Any] | None:
        key = describe({"kind": kind, "metadata": {"name": name, "namespace": namespace}})
        found = self.kubernetes.api(cluster.name).objects.get(key)
        return None if found is None else copy.deepcopy(_merge(found, patch))

    def proxy_post(
        self, cluster: EksCluster, region: str, namespace: str, service: str, port: int, path: str, body: dict[str, Any]
    ) -> HttpAnswer:
        self.calls.append((f"proxy:{namespace}/{service}:{port}{path}", body))
        return self.answer

    def load_balancer_post(self, url: str, body: dict[str, Any]) -> HttpAnswer:
        self.calls.append((url, body))
        return self.answer
