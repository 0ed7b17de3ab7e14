"""The simulated training operator on the emulator alone: scheduling, the restart policy, deletion; and the RBAC
check the sandbox applies to principals known by their Kubernetes groups."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.training.manifest import JobPlacement, render
from controlplane.core.workload_access import JOB_WRITERS_GROUP, job_writer_rbac
from controlplane.models.training import SubmitJobRequest
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.rbac import ApiAccess, rbac_allows
from sandbox.k8s.training import GROUP, PLURAL, VERSION, TrainingOperatorSimulation

CLUSTER = "eks-cluster-sim"


def node(name: str, gpus: int) -> dict[str, Any]:
    labels = {"node.kubernetes.io/instance-type": "ml.g5.12xlarge"}
    capacity = {"nvidia.com/gpu": str(gpus)}
    status = {"capacity": capacity, "allocatable": capacity, "conditions": [{"type": "Ready", "status": "True"}]}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "status": status}


@pytest.fixture
def world() -> tuple[KubernetesEmulator, TrainingOperatorSimulation, ClusterStore]:
    emulator = KubernetesEmulator()
    training = TrainingOperatorSimulation(emulator, seconds_per_line=0.001)
    training.install()
    training.serve(CLUSTER)
    store = emulator.store(CLUSTER)
    for index in range(2):
        store.put(node(f"hyperpod-i-{index}", 4))
    return emulator, training, store


def submit(store: ClusterStore, name: str, **fields: Any) -> None:
    body = {"name": name, "image": "img", "nodes": 2, "gpusPerNode": 4, "instanceType": "ml.g5.12xlarge", **fields}
    store.put(render(SubmitJobRequest.model_validate(body), JobPlacement("default", "s3-claim", None, 0)))


def until(store: ClusterStore, name: str, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        job = store.get(GROUP, VERSION, PLURAL, "default", name) or {}
        if done(job) or time.monotonic() > deadline:
            return job
        time.sleep(0.01)


def condition(job: dict[str, Any]) -> str | None:
    held = [c["type"] for c in (job.get("status") or {}).get("conditions") or [] if c["status"] == "True"]
    return held[-1] if held else None


KEEP = {"runPolicy": {"cleanPodPolicy": "None"}}


def test_a_job_gets_a_pod_per_node_writes_logs_and_completes(world) -> None:
    emulator, _, store = world
    submit(store, "ok", **KEEP)

    job = until(store, "ok", lambda job: condition(job) == "Completed")

    assert condition(job) == "Completed"
    pods = store.list("", "v1", "pods", "default", "instantstart.aws/job=ok")
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["hyperpod-i-0", "hyperpod-i-1"]
    assert all(p["status"]["phase"] == "Succeeded" for p in pods)
    log = emulator.transact(CLUSTER, lambda cluster, _: cluster.logs[("default", pods[0]["metadata"]["name"])])
    assert len(log.splitlines()) == 30 and log.splitlines()[-1].endswith("step 30/30 loss=0.0667")


def test_a_jobs_pods_keep_the_templates_gpu_resources_with_requests_defaulted_to_limits(world) -> None:
    _, _, store = world
    submit(store, "gpus", **KEEP)

    until(store, "gpus", lambda job: condition(job) is not None)

    pods = store.list("", "v1", "pods", "default", "instantstart.aws/job=gpus")
    assert len(pods) == 2
    for pod in pods:
        resources = pod["spec"]["containers"][0]["resources"]
        assert resources["limits"]["nvidia.com/gpu"] == "4"
        assert resources["requests"]["nvidia.com/gpu"] == "4"


def test_a_job_that_fits_no_node_stays_created(world) -> None:
    _, _, store = world
    submit(store, "big", gpusPerNode=8)

    job = until(store, "big", lambda job: condition(job) is not None)

    assert condition(job) == "Created"
    assert store.list("", "v1", "pods", "default", "instantstart.aws/job=big") == []


def test_a_job_gets_no_pod_on_a_node_that_is_not_ready(world) -> None:
    _, _, store = world
    not_ready = store.get("", "v1", "nodes", None, "hyperpod-i-1")
    not_ready["status"]["conditions"] = [{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}]
    store.put(not_ready)
    submit(store, "half")

    job = until(store, "half", lambda job: condition(job) is not None)

    assert condition(job) == "Created"
    assert store.list("", "v1", "pods", "default", "instantstart.aws/job=half") == []


def test_kills_past_the_in_place_budget_restart_the_whole_job_then_fail_it(world) -> None:
    _, training, store = world
    policy = {"restartPolicy": {"numRestartBeforeFullJobRestart": 0, "maxFullJobRestarts": 1, "evalPeriodSeconds": 60}}
    training.kill(CLUSTER, "default", "fragile", after_lines=2)
    submit(store, "fragile", runPolicy={**KEEP["runPolicy"], **policy})

    job = until(store, "fragile", lambda job: condition(job) == "Completed")
    assert job["status"]["restartStatus"] == {"fullJobRestartCount": 1}

    training.kill(CLUSTER, "default", "doomed", after_lines=1)
    submit(store, "doomed", runPolicy={**policy, "restartPolicy": {**policy["restartPolicy"], "maxFullJobRestarts": 0}})
    failed = until(store, "doomed", lambda job: condition(job) == "Failed")
    assert condition(failed) == "Failed"


def test_deleting_a_job_deletes_its_pods(world) -> None:
    _, training, store = world
    training.seconds_per_line = 0.5
    submit(store, "gone")
    until(store, "gone", lambda job: condition(job) == "Running")

    store.delete(GROUP, VERSION, PLURAL, "default", "gone")

    assert store.list("", "v1", "pods", "default", "instantstart.aws/job=gone") == []


def test_the_job_writers_group_may_create_and_delete_jobs_and_write_nothing_else(world) -> None:
    _, _, store = world
    for obj in job_writer_rbac():
        store.put(obj)

    def allowed(verb: str, group: str, resource: str, groups: tuple[str, ...] = (JOB_WRITERS_GROUP,)) -> bool:
        return rbac_allows(store, groups, ApiAccess(verb, group, resource))

    assert allowed("create", GROUP, PLURAL) and allowed("delete", GROUP, PLURAL)
    assert not allowed("patch", GROUP, PLURAL)
    assert not allowed("create", "", "configmaps")
    assert not allowed("create", GROUP, PLURAL, groups=("someone-else",))
    assert rbac_allows(store, [JOB_WRITERS_GROUP], ApiAccess("get", None, None))
