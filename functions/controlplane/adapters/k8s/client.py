"""Builds `kubernetes` API clients for EKS clusters: a bearer token presigned with STS, the CA from EKS.

The `kubernetes` package is imported here only, on first use, so entry points that never talk to a
cluster do not pay for it at cold start.
"""

from __future__ import annotations

import base64
import os
import tempfile
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from botocore.credentials import Credentials
from botocore.signers import RequestSigner

from controlplane.adapters.aws.session import client
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import KubernetesNode

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
    """An EKS token: a presigned STS GetCallerIdentity URL bound to the cluster by `x-k8s-aws-id`."""
    sts = client("sts", region)
    signer = RequestSigner(sts.meta.service_model.service_id, region, "sts", "v4", credentials, sts.meta.events)
    url = signer.generate_presigned_url(
        {
            "method": "GET",
            "url": f"https://sts.{region}.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15",
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
    """Signs as the control plane's Kubernetes role (the principal of the clusters' access entry)."""

    def __init__(self, role_arn: str) -> None:
        self._role_arn = role_arn
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
        from kubernetes import client as k8s

        if not cluster.endpoint:
            raise ValueError(f"EKS cluster {cluster.name} has no endpoint yet.")
        configuration = k8s.Configuration(host=cluster.endpoint)
        # kubernetes>=36 reads the token under "BearerToken" (and its prefix only under that name).
        configuration.api_key = {"BearerToken": bearer_token(cluster.name, region, self._credentials())}
        configuration.api_key_prefix = {"BearerToken": "Bearer"}
        if cluster.certificate_authority:
            configuration.ssl_ca_cert = _ca_file(cluster.certificate_authority)
        return k8s.ApiClient(configuration)


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
SYSTEM_NAMESPACES = frozenset({"kube-system", "kube-node-lease", "aws-hyperpod", "cert-manager"})


def _describe(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata", {})
    namespace = metadata.get("namespace")
    return f"{obj['kind']}/{namespace + '/' if namespace else ''}{metadata['name']}"


class KubernetesApiGateway:
    def __init__(self, factory: KubernetesClientFactory) -> None:
        self._factory = factory

    def apply(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        from kubernetes.dynamic import DynamicClient

        with self._factory.api_client(cluster, region) as api:
            dynamic = DynamicClient(api)
            for obj in objects:
                resource = dynamic.resources.get(api_version=obj["apiVersion"], kind=obj["kind"])
                dynamic.server_side_apply(
                    resource,
                    body=obj,
                    name=obj["metadata"]["name"],
                    namespace=obj["metadata"].get("namespace"),
                    field_manager=FIELD_MANAGER,
                    force_conflicts=True,
                )
        return [_describe(obj) for obj in objects]

    def nodes(self, cluster: EksCluster, region: str) -> list[KubernetesNode]:
        from kubernetes import client as k8s

        found = []
        with self._factory.api_client(cluster, region) as api:
            for node in k8s.CoreV1Api(api).list_node().items:
                conditions = {c.type: c.status for c in (node.status.conditions or [])}
                found.append(
                    KubernetesNode(
                        name=node.metadata.name,
                        ready=conditions.get("Ready") == "True",
                        schedulable=not node.spec.unschedulable
                        and not any(t.effect == "NoSchedule" for t in node.spec.taints or []),
                        labels=dict(node.metadata.labels or {}),
                        capacity=dict(node.status.capacity or {}),
                        allocatable=dict(node.status.allocatable or {}),
                    )
                )
        return found

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

    def workload_pods(self, cluster: EksCluster, region: str, node_names: set[str]) -> list[str]:
        from kubernetes import client as k8s

        with self._factory.api_client(cluster, region) as api:
            pods = k8s.CoreV1Api(api).list_pod_for_all_namespaces(field_selector="status.phase=Running").items
        return sorted(
            f"{pod.metadata.namespace}/{pod.metadata.name}"
            for pod in pods
            if pod.spec.node_name in node_names
            and pod.metadata.namespace not in SYSTEM_NAMESPACES
            and not any(owner.kind == "DaemonSet" for owner in pod.metadata.owner_references or [])
        )

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
