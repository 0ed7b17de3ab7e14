"""Workload objects in a namespace through the official client: custom objects (training jobs) by kind, their
pods, events and pod logs. Which identity signs depends on the factory: the view role reads, the jobs role writes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from controlplane.adapters.k8s.client import KubernetesClientFactory, raw_pages
from controlplane.adapters.k8s.paging import continuing
from controlplane.adapters.k8s.strict import rejection, strict_query
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import KubernetesEvent, KubernetesPod, ObjectPage


def _pod(raw: dict[str, Any]) -> KubernetesPod:
    status = raw.get("status") or {}
    restarts = sum(int(container.get("restartCount") or 0) for container in status.get("containerStatuses") or [])
    return KubernetesPod(
        name=raw["metadata"]["name"],
        node=(raw.get("spec") or {}).get("nodeName"),
        phase=status.get("phase") or "Pending",
        restarts=restarts,
    )


def _event(raw: dict[str, Any]) -> KubernetesEvent:
    at = raw.get("lastTimestamp") or raw.get("eventTime") or (raw.get("metadata") or {}).get("creationTimestamp")
    return KubernetesEvent(type=raw.get("type"), reason=raw.get("reason"), message=raw.get("message"), at=at)


class KubernetesWorkloadGateway:
    def __init__(self, factory: KubernetesClientFactory) -> None:
        self._factory = factory

    def create(self, cluster: EksCluster, region: str, obj: dict[str, Any]) -> bool:
        from kubernetes.client.exceptions import ApiException
        from kubernetes.dynamic import DynamicClient

        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            resource = dynamic.resources.get(api_version=obj["apiVersion"], kind=obj["kind"])
            try:
                dynamic.create(resource, body=obj, namespace=obj["metadata"]["namespace"], query_params=strict_query())
            except ApiException as error:
                if error.status == 409:
                    return False
                raise rejection(error, obj) or error from None
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
        from kubernetes.dynamic import DynamicClient
        from kubernetes.dynamic.exceptions import ResourceNotFoundError

        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            try:
                resource = dynamic.resources.get(api_version=api_version, kind=kind)
            except ResourceNotFoundError:
                return ObjectPage([], None)
            paging = {"limit": limit, **({"_continue": token} if token else {})}
            named = {"field_selector": f"metadata.name={name}"} if name else {}
            with continuing(token):
                response = dynamic.get(resource, namespace=namespace, serialize=False, **paging, **named)
            body = json.loads(response.data)
            return ObjectPage(body.get("items") or [], (body.get("metadata") or {}).get("continue") or None)

    def delete_object(
        self, cluster: EksCluster, region: str, api_version: str, kind: str, namespace: str, name: str
    ) -> bool:
        from kubernetes.client.exceptions import ApiException
        from kubernetes.dynamic import DynamicClient
        from kubernetes.dynamic.exceptions import ResourceNotFoundError

        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            try:
                resource = dynamic.resources.get(api_version=api_version, kind=kind)
                dynamic.delete(resource, name=name, namespace=namespace, propagation_policy="Background")
            except ResourceNotFoundError:
                return False
            except ApiException as error:
                if error.status == 404:
                    return False
                raise
        return True

    def patch_object(self, cluster: EksCluster, region: str, obj: dict[str, Any]) -> bool:
        from kubernetes.client.exceptions import ApiException
        from kubernetes.dynamic import DynamicClient

        metadata = obj["metadata"]
        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            resource = dynamic.resources.get(api_version=obj["apiVersion"], kind=obj["kind"])
            try:
                dynamic.patch(
                    resource,
                    body=obj,
                    name=metadata["name"],
                    namespace=metadata["namespace"],
                    content_type="application/merge-patch+json",
                    query_params=strict_query(),
                )
            except ApiException as error:
                if error.status == 404:
                    return False
                raise rejection(error, obj) or error from None
        return True

    def pods(self, cluster: EksCluster, region: str, namespace: str, labels: Mapping[str, str]) -> list[KubernetesPod]:
        from kubernetes import client as k8s

        selector = ",".join(f"{key}={value}" for key, value in labels.items())
        with self._factory.api_client(cluster, region) as api:
            list_pods = k8s.CoreV1Api(api).list_namespaced_pod
            pods = [_pod(raw) for raw in raw_pages(list_pods, namespace=namespace, label_selector=selector)]
        return sorted(pods, key=lambda pod: pod.name)

    def events(self, cluster: EksCluster, region: str, namespace: str, involved: str) -> list[KubernetesEvent]:
        from kubernetes import client as k8s

        with self._factory.api_client(cluster, region) as api:
            list_events = k8s.CoreV1Api(api).list_namespaced_event
            selector = f"involvedObject.name={involved}"
            events = [_event(raw) for raw in raw_pages(list_events, namespace=namespace, field_selector=selector)]
        return sorted(events, key=lambda event: event.at or "")

    def pod_log(
        self,
        cluster: EksCluster,
        region: str,
        namespace: str,
        pod: str,
        tail_lines: int | None,
        since_seconds: int | None,
    ) -> str | None:
        from kubernetes import client as k8s
        from kubernetes.client.exceptions import ApiException

        options = {
            **({"tail_lines": tail_lines} if tail_lines is not None else {}),
            **({"since_seconds": since_seconds} if since_seconds is not None else {}),
        }
        with self._factory.api_client(cluster, region) as api:
            try:
                response = k8s.CoreV1Api(api).read_namespaced_pod_log(pod, namespace, _preload_content=False, **options)
            except ApiException as error:
                if error.status == 404:
                    return None
                raise
            return bytes(response.data).decode(errors="replace")
