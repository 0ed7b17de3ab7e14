"""Model servers on a cluster: their Kubernetes objects read by label and patched, and HTTP calls to them through
the Kubernetes API server's service proxy or a Service's load balancer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import ObjectPage


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    body: str


class ServingGateway(Protocol):
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
        """A page of the kind's objects in the namespace (None: every namespace) carrying `labels` (a None value: the
        label is present), as raw JSON."""

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
        """Merge-patch the object; the object after the patch, or None when it does not exist."""

    def proxy_post(
        self, cluster: EksCluster, region: str, namespace: str, service: str, port: int, path: str, body: dict[str, Any]
    ) -> HttpAnswer:
        """POST `body` as JSON to `path` of the Service's port through the API server's service proxy."""

    def load_balancer_post(self, url: str, body: dict[str, Any]) -> HttpAnswer:
        """POST `body` as JSON to a load balancer's URL (one a cluster's Service reports, never a caller's)."""
