"""The simulated KubeRay controller on the emulator alone: a RayJob's head, workers and submitter on the nodes, log
lines, SUCCEEDED and the Ray cluster shut down; a RayCluster that stays up; deletion; and the job writers' RBAC on
the ray.io kinds."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.training.manifest import JobPlacement
from controlplane.core.training.ray import render
from controlplane.core.workload_access import JOB_WRITERS_GROUP, job_writer_rbac
from controlplane.models.training import SubmitJobRequest
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.kuberay import KubeRaySimulation
from sandbox.k8s.rbac import ApiAccess, rbac_allows

CLUSTER = "eks-cluster-sim"
JOB_LABEL = "instantstart.aws/job"


def node(name: str, gpus: int) -> dict[str, Any]:
    labels = {"node.kubernetes.io/instance-type": "ml.g5.12xlarge"}
    capacity = {"nvidia.com/gpu": str(gpus)}
    status = {"capacity": capacity, "allocatable": capacity, "conditions": [{"type": "Ready", "status": "True"}]}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "status": status}


@pytest.fixture
def world() -> tuple[KubernetesEmulator, KubeRaySimulation, ClusterStore]:
    emulator = KubernetesEmulator()
    kuberay = KubeRaySimulation(emulator, seconds_per_line=0.001)
    kuberay.install()
    emulator.add_cluster(CLUSTER)
    store = emulator.store(CLUSTER)
    for plural, kind in (("rayjobs", "RayJob"), ("rayclusters", "RayCluster")):  # as the kuberayOperator feature
        names = {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"}
        schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
        version = {"name": "v1", "served": True, "storage": True, "schema": schema, "subresources": {"status": {}}}
        spec = {"group": "ray.io", "names": names, "scope": "Namespaced", "versions": [version]}
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}
        store.put({**crd, "metadata": {"name": f"{plural}.ray.io"}, "spec": spec})
    for index in range(2):
        store.put(node(f"hyperpod-i-{index}", 4))
    return emulator, kuberay, store


def submit(store: ClusterStore, name: str, **fields: Any) -> None:
    body = {
        "name": name,
        "kind": "RayJob",
        "image": "img",
        "command": ["python3", "-m", "verl.trainer.main_ppo"],
        "nodes": 2,
        "gpusPerNode": 4,
        "instanceType": "ml.g5.12xlarge",
        **fields,
    }
    store.put(render(SubmitJobRequest.model_validate(body), JobPlacement("default", "s3-claim", None, 0)))


def until(store: ClusterStore, plural: str, name: str, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        job = store.get("ray.io", "v1", plural, "default", name) or {}
        if done(job) or time.monotonic() > deadline:
            return job
        time.sleep(0.01)


def pods(store: ClusterStore, name: str) -> list[dict[str, Any]]:
    return store.list("", "v1", "pods", "default", f"{JOB_LABEL}={name}")


def status(job: dict[str, Any]) -> dict[str, Any]:
    return job.get("status") or {}


def test_a_ray_job_gets_a_head_workers_and_a_submitter_writes_logs_and_succeeds(world) -> None:
    emulator, _, store = world
    submit(store, "verl", ray={"shutdownAfterJobFinishes": False})

    job = until(store, "rayjobs", "verl", lambda job: status(job).get("jobStatus") == "SUCCEEDED")

    assert status(job)["jobDeploymentStatus"] == "Complete"
    ray_cluster = status(job)["rayClusterName"]
    found = {p["metadata"]["name"]: p for p in pods(store, "verl")}
    assert sorted(found) == [f"{ray_cluster}-head", f"{ray_cluster}-workers-worker-0", "verl-submit"]
    head, worker = found[f"{ray_cluster}-head"], found[f"{ray_cluster}-workers-worker-0"]
    assert {head["spec"]["nodeName"], worker["spec"]["nodeName"]} == {"hyperpod-i-0", "hyperpod-i-1"}
    assert found["verl-submit"]["status"]["phase"] == "Succeeded"
    log = emulator.transact(CLUSTER, lambda cluster, _: cluster.logs[("default", "verl-submit")])
    assert len(log.splitlines()) == 30


def test_a_finished_ray_job_shuts_its_ray_cluster_down_and_keeps_the_submitter(world) -> None:
    _, _, store = world
    submit(store, "short")

    until(store, "rayjobs", "short", lambda job: status(job).get("jobStatus") == "SUCCEEDED")

    assert [p["metadata"]["name"] for p in pods(store, "short")] == ["short-submit"]


def test_a_ray_job_that_fits_no_node_stays_initializing(world) -> None:
    _, _, store = world
    submit(store, "big", nodes=3)

    job = until(store, "rayjobs", "big", lambda job: status(job).get("jobDeploymentStatus") is not None)
    time.sleep(0.05)

    assert status(job)["jobDeploymentStatus"] == "Initializing"
    assert pods(store, "big") == []


def test_a_ray_cluster_stays_up_until_deleted_and_deleting_it_deletes_its_pods(world) -> None:
    _, _, store = world
    submit(store, "ray", kind="RayCluster", command=[])

    cluster = until(store, "rayclusters", "ray", lambda job: status(job).get("state") == "ready")
    assert status(cluster)["state"] == "ready"
    assert len(pods(store, "ray")) == 2

    store.delete("ray.io", "v1", "rayclusters", "default", "ray")

    assert pods(store, "ray") == []


def test_deleting_a_running_ray_job_deletes_its_pods(world) -> None:
    _, kuberay, store = world
    kuberay.seconds_per_line = 0.5
    submit(store, "gone")
    until(store, "rayjobs", "gone", lambda job: status(job).get("jobStatus") == "RUNNING")

    store.delete("ray.io", "v1", "rayjobs", "default", "gone")

    assert pods(store, "gone") == []


def test_the_job_writers_may_write_ray_jobs_and_ray_clusters_and_no_other_ray_kind(world) -> None:
    _, _, store = world
    for obj in job_writer_rbac():
        store.put(obj)

    def allowed(verb: str, resource: str) -> bool:
        return rbac_allows(store, [JOB_WRITERS_GROUP], ApiAccess(verb, "ray.io", resource))

    assert allowed("create", "rayjobs") and allowed("delete", "rayclusters")
    assert not allowed("create", "rayservices")
    assert not allowed("patch", "rayjobs")
