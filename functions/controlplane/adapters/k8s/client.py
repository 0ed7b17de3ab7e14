"""Builds `kubernetes` API clients for EKS clusters: a bearer token presigned with STS, the CA from EKS.

The `kubernetes` package is imported here only, on first use, so entry points that never talk to a
cluster do not pay for it at cold start.
"""

from __future__ import annotations

import base64
import gc
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from botocore.credentials import Credentials
from botocore.signers import RequestSigner

from controlplane.adapters.aws.session import client, dns_suffix
from controlplane.adapters.k8s.refusal import guarded_client
from controlplane.adapters.k8s.strict import rejection, strict_query
from controlplane.core.concurrency import each, in_batches
from controlplane.core.naming import CLUSTER_TAG_KEY
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import DaemonPod, KubernetesNode, NodeTaint, WorkloadPods

if TYPE_CHECKING:
    from kubernetes.client import ApiClient

TOKEN_PREFIX = "k8s-aws-v1."
TOKEN_LIFETIME_SECONDS = 60
CREDENTIALS_REFRESH_SECONDS = 600


@dataclass
class _CachedCredentials:
    credentials: Credentials
    expires_at: float


def bearer_token(cluster_name: str, region: str, credentials: Credentials) -> str:
    """An EKS token: a presigned STS GetCallerIdentity URL bound to the cluster by `x-k8s-aws-id`, on the regional
    STS host of the cluster's partition (`sts.cn-north-1.amazonaws.com.cn` in China), as EKS's authenticator expects."""
    sts = client("sts", region)
    signer = RequestSigner(sts.meta.service_model.service_id, region, "sts", "v4", credentials, sts.meta.events)
    url = signer.generate_presigned_url(
        {
            "method": "GET",
            "url": f"https://sts.{region}.{dns_suffix(region)}/?Action=GetCallerIdentity&Version=2011-06-15",
            "body": {},
            "headers": {"x-k8s-aws-id": cluster_name},
            "context": {},
        },
        region_name=region,
        expires_in=TOKEN_LIFETIME_SECONDS,
        operation_name="",
    )
    return TOKEN_PREFIX + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


class KubernetesClientFactory:
    """Signs as the control plane's Kubernetes role (the principal of the clusters' access entry); `reader` marks the
    view role, whose every refused read is a refusal of its access (`refusal`)."""

    def __init__(self, role_arn: str, *, reader: bool = False) -> None:
        self._role_arn = role_arn
        self._reader = reader
        self._cached: _CachedCredentials | None = None

    def _credentials(self) -> Credentials:
        if self._cached is None or self._cached.expires_at < time.time():
            response = client("sts").assume_role(RoleArn=self._role_arn, RoleSessionName="instantstart-control-plane")
            creds = response["Credentials"]
            self._cached = _CachedCredentials(
                Credentials(creds["AccessKeyId"], creds["SecretAccessKey"], creds["SessionToken"]),
                time.time() + CREDENTIALS_REFRESH_SECONDS,
            )
        return self._cached.credentials

    def api_client(self, cluster: EksCluster, region: str) -> ApiClient:
        """A client of `cluster`'s Kubernetes API; its refusals of the control plane are ClusterAccessDeniedError."""
        from kubernetes import client as k8s

        if not cluster.endpoint:
            raise ValueError(f"EKS cluster {cluster.name} has no endpoint yet.")
        configuration = k8s.Configuration(host=cluster.endpoint)
        # kubernetes>=36 reads the token under "BearerToken" (and its prefix only under that name).
        configuration.api_key = {"BearerToken": bearer_token(cluster.name, region, self._credentials())}
        configuration.api_key_prefix = {"BearerToken": "Bearer"}
        if cluster.certificate_authority:
            configuration.ssl_ca_cert = _ca_file(cluster.certificate_authority)
        tag = cluster.tags.get(CLUSTER_TAG_KEY, "{clusterTag}")
        return guarded_client(configuration, cluster.name, self._role_arn, tag, self._reader)


def _ca_file(certificate_authority: str) -> str:
    """Write the cluster CA to a file the client can read (Lambda's /tmp); reused per content."""
    data = base64.b64decode(certificate_authority)
    path = os.path.join(tempfile.gettempdir(), f"eks-ca-{abs(hash(data))}.crt")
    if not os.path.exists(path):
        with open(path, "wb") as handle:
            handle.write(data)
    return path


FIELD_MANAGER = "instantstart"
# Pods here are cluster machinery, not the jobs an instance-group deletion would strand.
SYSTEM_NAMESPACES = ("kube-system", "kube-node-lease", "aws-hyperpod", "cert-manager")
# Running pods outside the system namespaces, filtered by the API server (one node's: add `spec.nodeName=`).
WORKLOAD_POD_FIELDS = ",".join(["status.phase=Running", *(f"metadata.namespace!={name}" for name in SYSTEM_NAMESPACES)])
# Lists are read as raw JSON (no typed client objects) in pages of this many items.
PAGE_SIZE = 500


class _CollectorPause:
    """Pauses Python's cyclic garbage collector while list pages are decoded, on any number of threads at once (the
    last decode to finish resumes it, if it ran before the first began).

    A decoded page holds no reference cycles, so a collection during the decode frees nothing; yet the hundreds of
    thousands of containers it allocates trigger collections that scan them again and again: a third of the decode
    time of a 50,000-pod overview, measured (`tests/bench/test_scale.py`).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._decoding = 0
        self._resume = False

    def __enter__(self) -> None:
        with self._lock:
            if self._decoding == 0:
                self._resume = gc.isenabled()
                gc.disable()
            self._decoding += 1

    def __exit__(self, *_: object) -> None:
        with self._lock:
            self._decoding -= 1
            if self._decoding == 0 and self._resume:
                gc.enable()


_collector_pause = _CollectorPause()


def decode_page(data: bytes, decode: Callable[[bytes], Any] = json.loads) -> Any:
    """A list response's body, decoded (as plain JSON unless told) with the garbage collector paused."""
    with _collector_pause:
        return decode(data)


def raw_list_pages(
    list_call: Callable[..., Any], page_size: int = PAGE_SIZE, **selectors: str
) -> Iterator[tuple[list[dict[str, Any]], bool]]:
    """The items of a `kubernetes` list call page by page, as raw JSON, each with whether it is the last page.

    A caller that has its answer stops iterating, and no further page is read.
    """
    token = None
    while True:
        paging = {"limit": page_size, **({"_continue": token} if token else {})}
        response = list_call(**selectors, **paging, _preload_content=False)
        body = decode_page(response.data)
        token = (body.get("metadata") or {}).get("continue")
        yield body.get("items") or [], not token
        if not token:
            return


def raw_pages(list_call: Callable[..., Any], **selectors: str) -> Iterator[dict[str, Any]]:
    """Every item of a `kubernetes` list call, read as raw JSON in pages."""
    for items, _ in raw_list_pages(list_call, PAGE_SIZE, **selectors):
        yield from items


def kubernetes_node(raw: dict[str, Any]) -> KubernetesNode:
    """A node of a raw JSON list or read, as the core sees it."""
    metadata, spec, status = raw["metadata"], raw.get("spec") or {}, raw.get("status") or {}
    conditions = {condition["type"]: condition for condition in status.get("conditions") or []}
    ready = conditions.get("Ready") or {}
    return KubernetesNode(
        name=metadata["name"],
        ready=ready.get("status") == "True",
        schedulable=not spec.get("unschedulable")
        and not any(taint.get("effect") == "NoSchedule" for taint in spec.get("taints") or []),
        labels=dict(metadata.get("labels") or {}),
        capacity=dict(status.get("capacity") or {}),
        allocatable=dict(status.get("allocatable") or {}),
        not_ready_reason=None
        if ready.get("status") == "True"
        else ": ".join(part for part in (ready.get("reason"), ready.get("message")) if part) or None,
        taints=tuple(
            NodeTaint(taint["key"], taint.get("value") or "", taint["effect"]) for taint in spec.get("taints") or []
        ),
    )


def daemon_pod(raw: dict[str, Any]) -> DaemonPod:
    """A pod of a raw JSON list, as the readiness check of DaemonSets sees it."""
    status = raw.get("status") or {}
    conditions = {condition["type"]: condition["status"] for condition in status.get("conditions") or []}
    waiting = next(
        (
            (container.get("image"), container["state"]["waiting"])
            for container in status.get("containerStatuses") or []
            if (container.get("state") or {}).get("waiting")
        ),
        None,
    )
    return DaemonPod(
        name=raw["metadata"]["name"],
        node=(raw.get("spec") or {}).get("nodeName"),
        ready=conditions.get("Ready") == "True",
        image=waiting[0] if waiting else None,
        waiting_reason=waiting[1].get("reason") if waiting else None,
        waiting_message=waiting[1].get("message") if waiting else None,
    )


def _describe(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata", {})
    namespace = metadata.get("namespace")
    return f"{obj['kind']}/{namespace + '/' if namespace else ''}{metadata['name']}"


class KubernetesApiGateway:
    def __init__(self, factory: KubernetesClientFactory) -> None:
        self._factory = factory

    def apply(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        from kubernetes.client.exceptions import ApiException
        from kubernetes.dynamic import DynamicClient

        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            for obj in objects:
                resource = dynamic.resources.get(api_version=obj["apiVersion"], kind=obj["kind"])
                try:
                    dynamic.server_side_apply(
                        resource,
                        body=obj,
                        name=obj["metadata"]["name"],
                        namespace=obj["metadata"].get("namespace"),
                        field_manager=FIELD_MANAGER,
                        force_conflicts=True,
                        query_params=strict_query(),
                    )
                except ApiException as error:
                    raise rejection(error, obj) or error from None
        return [_describe(obj) for obj in objects]

    def nodes(self, cluster: EksCluster, region: str, labels: Mapping[str, str] | None = None) -> list[KubernetesNode]:
        from kubernetes import client as k8s

        selector = ",".join(f"{key}={value}" for key, value in (labels or {}).items())
        with self._factory.api_client(cluster, region) as api:
            core = k8s.CoreV1Api(api)
            return [kubernetes_node(raw) for raw in raw_pages(core.list_node, label_selector=selector)]

    def nodes_named(self, cluster: EksCluster, region: str, names: Sequence[str]) -> list[KubernetesNode]:
        from kubernetes import client as k8s
        from kubernetes.client.exceptions import ApiException

        with self._factory.api_client(cluster, region) as api:
            core = k8s.CoreV1Api(api)

            def read(name: str) -> KubernetesNode | None:
                try:
                    return kubernetes_node(json.loads(core.read_node(name, _preload_content=False).data))
                except ApiException as error:
                    if error.status == 404:
                        return None
                    raise

            return [node for node in each(read, list(names)) if node is not None]

    def present(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        from kubernetes.client.exceptions import ApiException
        from kubernetes.dynamic import DynamicClient
        from kubernetes.dynamic.exceptions import ResourceNotFoundError

        found = []
        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            for obj in objects:
                try:
                    resource = dynamic.resources.get(api_version=obj["apiVersion"], kind=obj["kind"])
                    dynamic.get(resource, name=obj["metadata"]["name"], namespace=obj["metadata"].get("namespace"))
                except ResourceNotFoundError:
                    continue  # the kind itself is not served (e.g. a CRD that is not installed)
                except ApiException as error:
                    if error.status != 404:
                        raise
                    continue
                found.append(_describe(obj))
        return found

    def delete(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        from kubernetes.client.exceptions import ApiException
        from kubernetes.dynamic import DynamicClient

        deleted = []
        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            for obj in reversed(objects):
                resource = dynamic.resources.get(api_version=obj["apiVersion"], kind=obj["kind"])
                try:
                    dynamic.delete(resource, name=obj["metadata"]["name"], namespace=obj["metadata"].get("namespace"))
                except ApiException as error:
                    if error.status != 404:
                        raise
                    continue
                deleted.append(_describe(obj))
        return deleted

    def daemon_pods(
        self, cluster: EksCluster, region: str, namespace: str, labels: Mapping[str, str]
    ) -> list[DaemonPod]:
        from kubernetes import client as k8s

        selector = ",".join(f"{key}={value}" for key, value in labels.items())
        with self._factory.api_client(cluster, region) as api:
            list_pods = k8s.CoreV1Api(api).list_namespaced_pod
            return [daemon_pod(raw) for raw in raw_pages(list_pods, namespace=namespace, label_selector=selector)]

    def workload_pods(self, cluster: EksCluster, region: str, node_names: set[str]) -> WorkloadPods:
        """Each node's pods by a `spec.nodeName=` field selector (the API server indexes pods by node), a batch of
        nodes at a time on one pool of threads, stopping after the first batch that runs workloads."""
        from kubernetes import client as k8s

        nodes = sorted(node_names)
        with self._factory.api_client(cluster, region) as api:
            list_pods = k8s.CoreV1Api(api).list_pod_for_all_namespaces

            def on_node(node: str) -> list[str]:
                selector = f"{WORKLOAD_POD_FIELDS},spec.nodeName={node}"
                return [
                    f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
                    for pod in raw_pages(list_pods, field_selector=selector)
                    if not any(
                        owner.get("kind") == "DaemonSet" for owner in pod["metadata"].get("ownerReferences") or []
                    )
                ]

            read = 0
            for batch in in_batches(on_node, nodes):
                read += len(batch)
                found = [name for names in batch for name in names]
                if found:
                    return WorkloadPods(tuple(sorted(found)), complete=read == len(nodes))
        return WorkloadPods((), complete=True)

    def get(
        self, cluster: EksCluster, region: str, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> dict[str, Any] | None:
        from kubernetes.client.exceptions import ApiException
        from kubernetes.dynamic import DynamicClient
        from kubernetes.dynamic.exceptions import ResourceNotFoundError

        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            try:
                resource = dynamic.resources.get(api_version=api_version, kind=kind)
                found = dynamic.get(resource, name=name, namespace=namespace)
            except ResourceNotFoundError:
                return None
            except ApiException as error:
                if error.status == 404:
                    return None
                raise
            return dict(found.to_dict())

    def server_version(self, cluster: EksCluster, region: str) -> str:
        from kubernetes import client as k8s

        with self._factory.api_client(cluster, region) as api:
            info: Any = k8s.VersionApi(api).get_code()
            return str(info.git_version)
