"""A list the API pages with the cluster's own continue token refuses a token the API server refuses, as a 400 the
caller can act on: one it cannot read is not valid, one it no longer knows (410 Gone, about five minutes after the
first page) says to start again from the first page. Against the emulated API server over HTTP, through the
production gateways and the official client."""

from collections.abc import Callable, Iterator

import pytest

from controlplane.adapters.k8s.client import KubernetesClientFactory
from controlplane.adapters.k8s.monitoring import KubernetesClusterReads
from controlplane.adapters.k8s.serving import KubernetesServingGateway
from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
from controlplane.core.paging import ContinueTokenExpiredError
from controlplane.core.ports.eks import EksCluster
from controlplane.models.errors import InvalidRequestError
from sandbox.k8s.emulator import CONTINUE_LIFETIME_SECONDS, KubernetesEmulator

REGION = "us-west-2"
Lister = Callable[[str | None], str | None]


def pod(name: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "main", "image": "nginx"}]},
    }


@pytest.fixture
def listers(
    served: tuple[KubernetesEmulator, str], cluster: EksCluster, factory: KubernetesClientFactory
) -> dict[str, Lister]:
    """Each gateway's paged read of the cluster's three pods, one pod a page: token in, next token out."""
    for name in ("a", "b", "c"):
        served[0].store(cluster.name).put(pod(name))
    reads, serving, workloads = (
        KubernetesClusterReads(factory),
        KubernetesServingGateway(factory),
        KubernetesWorkloadGateway(factory),
    )
    return {
        "pods": lambda token: reads.pod_page(cluster, REGION, 1, token).next_token,
        "selected": lambda token: (
            serving.select(cluster, REGION, "v1", "Pod", "default", {"app": "web"}, 1, token).next_token
        ),
        "objects": lambda token: workloads.list_objects(cluster, REGION, "v1", "Pod", "default", 1, token).next_token,
    }


@pytest.fixture
def expiring(served: tuple[KubernetesEmulator, str]) -> Iterator[KubernetesEmulator]:
    yield served[0]
    served[0].set_continue_lifetime(CONTINUE_LIFETIME_SECONDS)


@pytest.mark.parametrize("read", ["pods", "selected", "objects"])
def test_a_token_the_api_server_cannot_read_is_not_valid(listers: dict[str, Lister], read: str) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        listers[read]("garbage")
    assert refused.value.status == 400
    assert refused.value.code == "InvalidRequest"
    assert "continue token is not valid" in refused.value.message


@pytest.mark.parametrize("read", ["pods", "selected", "objects"])
def test_an_expired_token_says_to_start_again_from_the_first_page(
    listers: dict[str, Lister], expiring: KubernetesEmulator, read: str
) -> None:
    token = listers[read](None)
    assert token is not None and listers[read](token) is not None

    expiring.set_continue_lifetime(0)
    with pytest.raises(ContinueTokenExpiredError) as refused:
        listers[read](token)

    assert (refused.value.status, refused.value.code) == (400, "ContinueTokenExpired")
    assert "first page" in refused.value.message
