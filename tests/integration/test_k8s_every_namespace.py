"""Jobs and model servers are found by name in whichever namespace they run (the claim's or a team's): the gateways
list a kind across every namespace, by name or by label, against the emulated API server over HTTP, through the
production gateways and the official client."""

import pytest

from controlplane.adapters.k8s.client import KubernetesClientFactory
from controlplane.adapters.k8s.serving import KubernetesServingGateway
from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
from controlplane.core.ports.eks import EksCluster
from sandbox.k8s.emulator import KubernetesEmulator

REGION = "us-west-2"


def pod(name: str, namespace: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
        "spec": {"containers": [{"name": "main", "image": "nginx"}]},
    }


@pytest.fixture
def pods(served: tuple[KubernetesEmulator, str], cluster: EksCluster) -> None:
    for name, namespace in (("a", "default"), ("b", "hyperpod-ns-ml-a"), ("a", "hyperpod-ns-ml-b")):
        served[0].store(cluster.name).put(pod(name, namespace))


def where(items: list[dict[str, object]]) -> list[str]:
    return sorted(f"{item['metadata']['namespace']}/{item['metadata']['name']}" for item in items)  # type: ignore[index]


def test_a_name_is_found_in_every_namespace(pods: None, cluster: EksCluster, factory: KubernetesClientFactory) -> None:
    page = KubernetesWorkloadGateway(factory).list_objects(cluster, REGION, "v1", "Pod", None, 10, None, name="a")
    assert where(page.items) == ["default/a", "hyperpod-ns-ml-b/a"]


def test_a_label_is_selected_in_every_namespace(
    pods: None, cluster: EksCluster, factory: KubernetesClientFactory
) -> None:
    page = KubernetesServingGateway(factory).select(cluster, REGION, "v1", "Pod", None, {"app": "b"}, 10, None)
    assert where(page.items) == ["hyperpod-ns-ml-a/b"]
