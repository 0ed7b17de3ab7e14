"""The simulated inference operator on the emulator alone: an endpoint deploys to DeploymentComplete with workers on
GPU nodes and a registered SageMaker endpoint, fails without a node that fits, and is deleted through
DeletionPending with its workers; the job writers' group may write endpoint objects."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.endpoints.manifest import ResolvedSource, render
from controlplane.core.workload_access import JOB_WRITERS_GROUP, job_writer_rbac
from controlplane.models.endpoints import CreateEndpointRequest
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.inference import GROUP, KINDS, VERSION, InferenceOperatorSimulation
from sandbox.k8s.rbac import ApiAccess, rbac_allows

CLUSTER = "eks-cluster-sim"
PLURAL = KINDS["InferenceEndpointConfig"]
SOURCE = ResolvedSource("huggingface", {"huggingFaceModel": {"modelId": "Qwen/Qwen3-0.6B"}}, None, "Qwen/Qwen3-0.6B")


class Registry:
    def __init__(self) -> None:
        self.endpoints: set[str] = set()

    def register(self, endpoint: str) -> None:
        self.endpoints.add(endpoint)

    def deregister(self, endpoint: str) -> None:
        self.endpoints.discard(endpoint)


def node(name: str, gpus: int) -> dict[str, Any]:
    labels = {"node.kubernetes.io/instance-type": "ml.g5.12xlarge"}
    capacity = {"nvidia.com/gpu": str(gpus)}
    status = {"capacity": capacity, "allocatable": capacity, "conditions": [{"type": "Ready", "status": "True"}]}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "status": status}


@pytest.fixture
def world() -> tuple[InferenceOperatorSimulation, ClusterStore, Registry]:
    emulator = KubernetesEmulator()
    registry = Registry()
    inference = InferenceOperatorSimulation(emulator, registry, seconds_to_load=0.01)
    inference.install()
    inference.serve(CLUSTER)
    store = emulator.store(CLUSTER)
    store.put(node("hyperpod-i-0", 4))
    return inference, store, registry


def create(store: ClusterStore, name: str, gpus: int = 1, replicas: int = 2) -> None:
    model = {"source": {"huggingFace": {"modelId": "Qwen/Qwen3-0.6B"}}, "image": "vllm:1", "gpus": gpus}
    request = CreateEndpointRequest.model_validate(
        {"name": name, "instanceType": "ml.g5.12xlarge", "replicas": replicas, "model": model}
    )
    store.put(render("sim", "default", request, SOURCE))


def until(store: ClusterStore, name: str, done: Callable[[dict[str, Any] | None], bool]) -> dict[str, Any] | None:
    deadline = time.monotonic() + 10
    while True:
        obj = store.get(GROUP, VERSION, PLURAL, "default", name)
        if done(obj) or time.monotonic() > deadline:
            return obj
        time.sleep(0.005)


def state_is(state: str) -> Callable[[dict[str, Any] | None], bool]:
    return lambda obj: obj is not None and (obj.get("status") or {}).get("state") == state


def workers(store: ClusterStore, name: str) -> list[dict[str, Any]]:
    return store.list("", "v1", "pods", "default", f"instantstart.aws/endpoint={name}")


def test_an_endpoint_deploys_workers_and_registers_its_sagemaker_endpoint(world) -> None:
    _, store, registry = world

    create(store, "qwen")

    done = until(store, "qwen", state_is("DeploymentComplete"))
    assert done is not None and done["status"]["conditions"][0]["type"] == "Ready"
    pods = workers(store, "qwen")
    assert [pod["status"]["phase"] for pod in pods] == ["Running", "Running"]
    assert {pod["spec"]["nodeName"] for pod in pods} == {"hyperpod-i-0"}
    assert registry.endpoints == {"is-sim-qwen"}


def test_workers_wait_in_deployment_in_progress_while_the_model_loads(world) -> None:
    inference, store, registry = world
    inference.seconds_to_load = 0.5

    create(store, "slow")

    loading = until(store, "slow", state_is("DeploymentInProgress"))
    assert loading is not None
    assert [pod["status"]["phase"] for pod in workers(store, "slow")] == ["Pending", "Pending"]
    assert registry.endpoints == set()


def test_an_endpoint_without_a_node_that_fits_fails(world) -> None:
    _, store, registry = world

    create(store, "big", gpus=8)

    failed = until(store, "big", state_is("DeploymentFailed"))
    assert failed is not None and "8 GPU(s)" in failed["status"]["conditions"][0]["message"]
    assert workers(store, "big") == [] and registry.endpoints == set()


def test_deletion_goes_through_deletion_pending_and_removes_workers_and_registration(world) -> None:
    inference, store, registry = world
    create(store, "qwen")
    until(store, "qwen", state_is("DeploymentComplete"))
    inference.seconds_to_load = 0.4

    store.delete(GROUP, VERSION, PLURAL, "default", "qwen")

    # The delete marks the object at once; the operator then moves its state (a read in between sees neither yet).
    deleting = ("DeletionPending", "DeletionInProgress")
    pending = until(store, "qwen", lambda obj: obj is not None and obj["status"]["state"] in deleting)
    assert pending is not None and pending["metadata"].get("deletionTimestamp") is not None
    assert until(store, "qwen", lambda obj: obj is None) is None
    assert workers(store, "qwen") == [] and registry.endpoints == set()


def test_the_job_writers_group_may_create_and_delete_endpoint_objects(world) -> None:
    _, store, _ = world
    for obj in job_writer_rbac():
        store.put(obj)

    for plural in KINDS.values():
        for verb in ("create", "delete", "get", "list"):
            assert rbac_allows(store, [JOB_WRITERS_GROUP], ApiAccess(verb, GROUP, plural)), (verb, plural)
        assert not rbac_allows(store, [JOB_WRITERS_GROUP], ApiAccess("patch", GROUP, plural))
