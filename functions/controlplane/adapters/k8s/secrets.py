"""A Secret's labels and key names through the official client, signed by the factory's role (the jobs role, whose
RBAC may get Secrets only in the namespaces the control plane owns). The values are dropped as the answer is parsed:
no token leaves this module."""

from __future__ import annotations

import json

from controlplane.adapters.k8s.client import KubernetesClientFactory
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import SecretFacts, SecretReadRefusedError


class KubernetesSecretGateway:
    def __init__(self, factory: KubernetesClientFactory) -> None:
        self._factory = factory

    def secret(self, cluster: EksCluster, region: str, namespace: str, name: str) -> SecretFacts | None:
        from kubernetes import client as k8s
        from kubernetes.client.exceptions import ApiException

        with self._factory.api_client(cluster, region) as api:
            try:
                response = k8s.CoreV1Api(api).read_namespaced_secret(name, namespace, _preload_content=False)
            except ApiException as error:
                if error.status == 404:
                    return None
                if error.status == 403:
                    raise SecretReadRefusedError(namespace) from None
                raise
            body = json.loads(response.data)
        labels = (body.get("metadata") or {}).get("labels") or {}
        return SecretFacts(labels=dict(labels), keys=frozenset(body.get("data") or {}))
