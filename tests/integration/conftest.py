"""The Kubernetes gateways' fixtures: the emulated API server over HTTP, one fresh cluster per test, and the
production client factory signing with fixed credentials instead of an assumed role."""

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from botocore.credentials import Credentials

from controlplane.adapters.k8s.client import KubernetesClientFactory
from controlplane.core.ports.eks import EksCluster
from sandbox.k8s.emulator import KubernetesEmulator
from sandbox.k8s.http import asgi_app

REGION = "us-west-2"


class _Server(uvicorn.Server):
    """A uvicorn server that says when it is listening."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        self.ready.set()


class StaticCredentialsFactory(KubernetesClientFactory):
    """The production client factory, signing its EKS tokens with fixed credentials instead of an assumed role."""

    def _credentials(self) -> Credentials:
        return Credentials("AKIDEXAMPLE", "secret")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[KubernetesEmulator, str]]:
    emulator = KubernetesEmulator()
    server = _Server(uvicorn.Config(asgi_app(emulator), host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    assert server.ready.wait(timeout=10), "uvicorn did not start"
    yield emulator, f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def cluster(served: tuple[KubernetesEmulator, str], request: pytest.FixtureRequest) -> EksCluster:
    name = f"k8s-{request.node.name[-40:].replace('_', '-').replace('[', '-').replace(']', '')}"
    return EksCluster(name, f"arn:aws:eks:{REGION}:123456789012:cluster/{name}", "ACTIVE", "1.34",
                      f"{served[1]}/{name}", None, None, "API_AND_CONFIG_MAP")  # fmt: skip


@pytest.fixture
def factory() -> KubernetesClientFactory:
    return StaticCredentialsFactory("arn:aws:iam::123456789012:role/kubernetes")
