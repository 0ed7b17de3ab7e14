"""The control plane's Kubernetes writes are strict: against the emulated API server over HTTP, through the production
gateways and the official client, an object carrying a field its kind's schema does not declare is refused with a
typed error that names the field, instead of being stored without it."""

from typing import Any

import pytest

from controlplane.adapters.k8s.client import KubernetesApiGateway, KubernetesClientFactory
from controlplane.adapters.k8s.serving import KubernetesServingGateway
from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
from controlplane.core.ports.eks import EksCluster
from controlplane.models.errors import KubernetesObjectRejectedError
from sandbox.k8s.emulator import KubernetesEmulator

REGION = "us-west-2"


def deployment(**container: Any) -> dict[str, Any]:
    labels = {"app": "web"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "main", "image": "nginx", **container}]},
            },
        },
    }


def test_create_refuses_an_unknown_field_instead_of_dropping_it(
    served: tuple[KubernetesEmulator, str], cluster: EksCluster, factory: KubernetesClientFactory
) -> None:
    writes = KubernetesWorkloadGateway(factory)

    with pytest.raises(KubernetesObjectRejectedError) as refused:
        writes.create(cluster, REGION, deployment(imagePullPolcy="Always"))

    assert refused.value.status == 400
    assert 'unknown field "spec.template.spec.containers[0].imagePullPolcy"' in refused.value.message
    assert refused.value.message.startswith("The cluster's Kubernetes API refused Deployment default/web (apps/v1)")
    assert served[0].store(cluster.name).get("apps", "v1", "deployments", "default", "web") is None


def test_create_of_declared_fields_succeeds_and_a_second_is_a_name_in_use(
    cluster: EksCluster, factory: KubernetesClientFactory
) -> None:
    writes = KubernetesWorkloadGateway(factory)

    assert writes.create(cluster, REGION, deployment(imagePullPolicy="Always")) is True
    assert writes.create(cluster, REGION, deployment(imagePullPolicy="Always")) is False


def test_apply_refuses_an_unknown_field_with_a_typed_error(
    cluster: EksCluster, factory: KubernetesClientFactory
) -> None:
    gateway = KubernetesApiGateway(factory)
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "default"}}

    with pytest.raises(KubernetesObjectRejectedError) as refused:
        gateway.apply(cluster, REGION, [{**config_map, "data": {"a": "1"}}, {**config_map, "date": {"a": "1"}}])

    assert refused.value.details == {"kind": "ConfigMap", "name": "cfg", "status": 500}
    assert ".date: field not declared in schema" in refused.value.message


def test_merge_patch_refuses_an_unknown_field(cluster: EksCluster, factory: KubernetesClientFactory) -> None:
    KubernetesWorkloadGateway(factory).create(cluster, REGION, deployment())
    serving = KubernetesServingGateway(factory)

    with pytest.raises(KubernetesObjectRejectedError) as refused:
        serving.patch(cluster, REGION, "apps/v1", "Deployment", "default", "web", {"spec": {"replica": 2}})

    assert 'strict decoding error: unknown field "spec.replica"' in refused.value.message
    patched = serving.patch(cluster, REGION, "apps/v1", "Deployment", "default", "web", {"spec": {"replicas": 2}})
    assert patched is not None and patched["spec"]["replicas"] == 2
