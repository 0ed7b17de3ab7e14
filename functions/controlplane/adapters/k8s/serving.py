"""Model servers through the official client: objects read by label selector and merge-patched as raw JSON, chat
calls through the API server's service proxy path, and calls to a
Service's load balancer over HTTP. Which identity signs depends on the factory: the view role reads, the jobs role
writes and calls.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

from controlplane.adapters.k8s.client import KubernetesClientFactory
from controlplane.adapters.k8s.paging import continuing
from controlplane.adapters.k8s.strict import rejection, strict_query
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import ObjectPage
from controlplane.core.ports.serving import HttpAnswer

# A chat completion of a few hundred tokens takes seconds; the API's Lambda has 29 s behind API Gateway.
CALL_TIMEOUT_SECONDS = 25


def _selector(labels: Mapping[str, str | None]) -> str:
    return ",".join(key if value is None else f"{key}={value}" for key, value in labels.items())


class KubernetesServingGateway:
    def __init__(self, factory: KubernetesClientFactory) -> None:
        self._factory = factory

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
        from kubernetes.dynamic import DynamicClient

        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            resource = dynamic.resources.get(api_version=api_version, kind=kind)
            paging = {"limit": limit, **({"_continue": token} if token else {})}
            with continuing(token):
                response = dynamic.get(
                    resource, namespace=namespace, label_selector=_selector(labels), serialize=False, **paging
                )
            body = json.loads(response.data)
            return ObjectPage(body.get("items") or [], (body.get("metadata") or {}).get("continue") or None)

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
        from kubernetes.client.exceptions import ApiException
        from kubernetes.dynamic import DynamicClient

        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            resource = dynamic.resources.get(api_version=api_version, kind=kind)
            try:
                response = dynamic.patch(
                    resource,
                    body=patch,
                    name=name,
                    namespace=namespace,
                    content_type="application/merge-patch+json",
                    serialize=False,
                    query_params=strict_query(),
                )
            except ApiException as error:
                if error.status == 404:
                    return None
                target = {"apiVersion": api_version, "kind": kind, "metadata": {"namespace": namespace, "name": name}}
                raise rejection(error, target) or error from None
            found: dict[str, Any] = json.loads(response.data)
            return found

    def proxy_post(
        self, cluster: EksCluster, region: str, namespace: str, service: str, port: int, path: str, body: dict[str, Any]
    ) -> HttpAnswer:
        from kubernetes.client.exceptions import ApiException

        # The generated `connect_post_namespaced_service_proxy_with_path` sends no body and escapes the path's
        # slashes, so the call goes to the same proxy path through the client's `call_api`.
        with self._factory.api_client(cluster, region) as api:
            try:
                response = api.call_api(
                    f"/api/v1/namespaces/{{namespace}}/services/{{name}}/proxy/{path.lstrip('/')}",
                    "POST",
                    path_params={"namespace": namespace, "name": f"{service}:{port}"},
                    header_params={"Content-Type": "application/json", "Accept": "application/json"},
                    body=body,
                    auth_settings=["BearerToken"],
                    _preload_content=False,
                    _request_timeout=CALL_TIMEOUT_SECONDS,
                )
            except ApiException as error:
                return HttpAnswer(int(error.status or 502), str(error.body or error.reason or ""))
            raw = response[0] if isinstance(response, tuple) else response
            return HttpAnswer(int(raw.status), bytes(raw.data).decode(errors="replace"))

    def load_balancer_post(self, url: str, body: dict[str, Any]) -> HttpAnswer:
        request = urllib.request.Request(
            url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=CALL_TIMEOUT_SECONDS) as response:
                return HttpAnswer(int(response.status), response.read().decode(errors="replace"))
        except urllib.error.HTTPError as error:
            return HttpAnswer(error.code, error.read().decode(errors="replace"))
        except (urllib.error.URLError, TimeoutError) as error:
            return HttpAnswer(504, f"the load balancer did not answer: {error}")
