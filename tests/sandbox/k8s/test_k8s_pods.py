"""The simulated pods' container statuses as the kubelet reports them: a started container names its image in full
(`image`), the digest it resolved to (`imageID`) and a container id; one whose image is not pulled has an empty
`imageID`; an ended one is terminated with its exit code. The official `kubernetes` client requires `image` and
`imageID` of every container status: each simulated controller's pods read as typed objects."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from kubernetes.client import ApiClient, V1Pod

from sandbox.k8s.daemonsets import DaemonSetController
from sandbox.k8s.emulator import KubernetesEmulator
from sandbox.k8s.inference import InferenceOperatorSimulation
from sandbox.k8s.pods import PodRequest, SimulatedPods, image_id, image_reference
from sandbox.k8s.serving import ModelServingSimulation
from tests.sandbox.k8s.test_k8s_daemonsets import AGENT, daemon_set
from tests.sandbox.k8s.test_k8s_daemonsets import node as daemon_node
from tests.sandbox.k8s.test_k8s_inference import Registry, create, workers
from tests.sandbox.k8s.test_k8s_serving import deploy
from tests.sandbox.k8s.test_k8s_serving import node as gpu_node

CLUSTER = "eks-cluster-pods"
DIGEST = re.compile(r"[0-9a-f]{64}")
OWNER = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner", "namespace": "default", "uid": "u"}}


class _Response:
    def __init__(self, obj: dict[str, Any]) -> None:
        self.data = json.dumps(obj)


def typed(pod: dict[str, Any]) -> V1Pod:
    """The pod as the official client's typed model (which validates required fields)."""
    return ApiClient().deserialize(_Response(pod), "V1Pod")


def until(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not check() and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.mark.parametrize(
    ("image", "reported"),
    [
        ("python:3.12", "docker.io/library/python:3.12"),
        ("nginx", "docker.io/library/nginx:latest"),
        ("bitnami/redis:7", "docker.io/bitnami/redis:7"),
        ("localhost:5000/app", "localhost:5000/app:latest"),
        ("public.ecr.aws/docker/library/python:3.12", "public.ecr.aws/docker/library/python:3.12"),
        ("1234.dkr.ecr.us-west-2.amazonaws.com/train:1", "1234.dkr.ecr.us-west-2.amazonaws.com/train:1"),
        (f"vllm/vllm-openai@sha256:{'a' * 64}", f"docker.io/vllm/vllm-openai@sha256:{'a' * 64}"),
    ],
)
def test_an_image_is_reported_by_its_full_reference(image: str, reported: str) -> None:
    assert image_reference(image) == reported


def test_an_image_id_is_the_repository_at_a_digest_stable_for_the_image() -> None:
    repository, _, digest = image_id("python:3.12").partition("@sha256:")

    assert repository == "docker.io/library/python" and DIGEST.fullmatch(digest)
    assert image_id("python:3.12") == image_id("docker.io/library/python:3.12") != image_id("python:3.13")
    pinned = f"docker.io/vllm/vllm-openai@sha256:{'a' * 64}"
    assert image_id(pinned) == pinned


def test_a_placed_pod_s_container_reports_its_image_digest_and_id_and_reads_typed() -> None:
    emulator = KubernetesEmulator()
    store = emulator.store(CLUSTER)
    store.put(gpu_node("hyperpod-i-0", 4))
    template = {"spec": {"containers": [{"name": "pytorch", "image": "python:3.12"}]}}

    SimulatedPods(emulator).place(store, OWNER, [PodRequest("trainer-0", template)])

    pod = store.get("", "v1", "pods", "default", "trainer-0")
    (status,) = pod["status"]["containerStatuses"]
    assert status["image"] == "docker.io/library/python:3.12"
    assert status["imageID"] == image_id("python:3.12")
    assert status["containerID"].startswith("containerd://") and "running" in status["state"]
    assert typed(pod).status.container_statuses[0].image_id == image_id("python:3.12")


def test_an_ended_pod_s_containers_are_terminated_with_their_exit_code() -> None:
    emulator = KubernetesEmulator()
    store = emulator.store(CLUSTER)
    store.put(gpu_node("hyperpod-i-0", 4))
    pods = SimulatedPods(emulator)
    template = {"spec": {"containers": [{"name": "pytorch", "image": "python:3.12"}]}}
    pods.place(store, OWNER, [PodRequest("trainer-0", template)])

    pods.set_phase(store, "default", "trainer-0", "Succeeded")

    pod = store.get("", "v1", "pods", "default", "trainer-0")
    (status,) = pod["status"]["containerStatuses"]
    assert status["state"]["terminated"]["exitCode"] == 0 and status["state"]["terminated"]["reason"] == "Completed"
    assert status["imageID"] == image_id("python:3.12") and not status["ready"]
    assert typed(pod).status.container_statuses[0].state.terminated.exit_code == 0


def test_a_container_whose_image_cannot_be_pulled_has_no_image_id_and_reads_typed() -> None:
    emulator = KubernetesEmulator()
    DaemonSetController(emulator).install()
    store = emulator.store(CLUSTER)
    store.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "aws-hyperpod"}})
    store.put(daemon_node("gpu-1", "ml.g6.4xlarge"))
    failing = f"905418368575.dkr.ecr.us-east-1.amazonaws.com/{AGENT}"  # the us-west-2 registry: not in us-east-1

    store.put(daemon_set(failing, ["ml.g6.4xlarge"]))

    (pod,) = store.list("", "v1", "pods", "aws-hyperpod")
    (status,) = pod["status"]["containerStatuses"]
    assert (status["image"], status["imageID"], status["started"]) == (failing, "", False)
    assert "containerID" not in status
    assert typed(pod).status.container_statuses[0].state.waiting.reason == "ImagePullBackOff"


def test_a_daemon_set_s_running_pod_reports_its_image_digest() -> None:
    emulator = KubernetesEmulator()
    DaemonSetController(emulator).install()
    store = emulator.store(CLUSTER)
    store.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "aws-hyperpod"}})
    store.put(daemon_node("gpu-1", "ml.g6.4xlarge"))
    image = f"767398015722.dkr.ecr.us-east-1.amazonaws.com/{AGENT}"

    store.put(daemon_set(image, ["ml.g6.4xlarge"]))

    (pod,) = store.list("", "v1", "pods", "aws-hyperpod")
    assert typed(pod).status.container_statuses[0].image_id == image_id(image)


def test_a_model_server_s_pod_reports_its_image_while_it_loads_and_once_ready() -> None:
    emulator = KubernetesEmulator()
    ModelServingSimulation(emulator, seconds_to_load=0.05).install()
    store = emulator.store(CLUSTER)
    store.put(gpu_node("hyperpod-i-0", 4))

    deploy(store)

    (loading,) = store.list("", "v1", "pods", "default")
    image = loading["spec"]["containers"][0]["image"]
    assert typed(loading).status.container_statuses[0].image_id == image_id(image)
    assert not loading["status"]["containerStatuses"][0]["ready"]
    until(lambda: store.list("", "v1", "pods", "default")[0]["status"]["containerStatuses"][0]["ready"])
    (ready,) = store.list("", "v1", "pods", "default")
    assert typed(ready).status.container_statuses[0].ready


def test_an_endpoint_s_workers_wait_for_their_image_then_report_its_digest() -> None:
    emulator = KubernetesEmulator()
    inference = InferenceOperatorSimulation(emulator, Registry(), seconds_to_load=0.3)
    inference.install()
    inference.serve(CLUSTER)
    store = emulator.store(CLUSTER)
    store.put(gpu_node("hyperpod-i-0", 4))

    create(store, "qwen", replicas=1)

    (pending,) = workers(store, "qwen")
    assert typed(pending).status.container_statuses[0].image_id == ""
    until(lambda: workers(store, "qwen")[0]["status"]["phase"] == "Running")
    (running,) = workers(store, "qwen")
    image = running["spec"]["containers"][0]["image"]
    assert typed(running).status.container_statuses[0].image_id == image_id(image)
