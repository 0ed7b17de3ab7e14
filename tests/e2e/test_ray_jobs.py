"""The KubeRay path through the API in the sandbox: the VERL recipe submitted → a Ray head and worker Running on the
nodes → ≥ 20 driver log lines → the RayJob Succeeded → delete removes its pods; a long-lived RayCluster; and each
refusal says what to change."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from sandbox.k8s.emulator import ClusterStore

TAG = "ray"
INSTANCE_TYPE = "ml.g6.4xlarge"
JOB_LABEL = "instantstart.aws/job"
VERL = {
    "recipe": "verl",
    "instanceType": INSTANCE_TYPE,
    "values": {
        "model": "Qwen/Qwen2.5-0.5B-Instruct",
        "trainFiles": "/s3/datasets/gsm8k/train.parquet",
        "valFiles": "/s3/datasets/gsm8k/test.parquet",
        "outputDir": "/s3/out/verl",
        "nodes": 2,
    },
}
RAY_CLUSTER = {"kind": "RayCluster", "image": "rayproject/ray:2.46.0", "nodes": 2, "instanceType": INSTANCE_TYPE}


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, instances=2, storage=True, features={"kuberayOperator": {"enabled": True}})
    return TAG


@pytest.fixture
def store(running_sandbox, cluster) -> ClusterStore:
    return running_sandbox.sandbox.emulator.store(f"eks-cluster-{cluster}")


@pytest.fixture(autouse=True)
def steps_of(running_sandbox) -> Iterator[Callable[[float], None]]:
    """Set how long a simulated Ray job's step takes, for one test."""
    kuberay = running_sandbox.sandbox.kuberay
    before = kuberay.seconds_per_line

    def set_seconds(seconds: float) -> None:
        kuberay.seconds_per_line = seconds

    set_seconds(0.02)
    yield set_seconds
    kuberay.seconds_per_line = before


def until(api: httpx.Client, name: str, done: Callable[[dict[str, Any]], bool], limit: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while True:
        detail = api.get(f"/clusters/{TAG}/jobs/{name}").json()
        if done(detail) or time.monotonic() > deadline:
            return detail
        time.sleep(0.05)


def delete(api: httpx.Client, name: str) -> None:
    plan = api.delete(f"/clusters/{TAG}/jobs/{name}").json()
    deleted = api.delete(f"/clusters/{TAG}/jobs/{name}", params={"confirmationToken": plan["confirmationToken"]})
    assert (deleted.status_code, deleted.json()["dryRun"]) == (200, False), deleted.text


def test_the_verl_recipe_runs_as_a_ray_job_writes_logs_succeeds_and_delete_removes_its_pods(
    cluster, operator, store, steps_of
) -> None:
    steps_of(0.1)
    submitted = operator.post(f"/clusters/{TAG}/jobs/from-recipe", json={**VERL, "name": "verl-grpo"})
    assert submitted.status_code == 201, submitted.text
    assert submitted.json()["job"]["kind"] == "RayJob"
    assert submitted.json()["job"]["command"][:3] == ["python3", "-m", "verl.trainer.main_ppo"]

    running = until(operator, "verl-grpo", lambda job: len(job["pods"]) == 3)  # head, worker, submitter
    assert (running["kind"], running["phase"], running["nodes"]) == ("RayJob", "Running", 2)
    assert {pod["phase"] for pod in running["pods"]} == {"Running"}
    ray_pods = [pod for pod in running["pods"] if pod["name"] != "verl-grpo-submit"]
    assert len({pod["node"] for pod in ray_pods}) == 2  # the head and the worker on a node each
    finished = until(operator, "verl-grpo", lambda job: job["phase"] in ("Succeeded", "Failed"))
    assert finished["phase"] == "Succeeded"
    logs = operator.get(
        f"/clusters/{TAG}/jobs/verl-grpo/logs", params={"pod": "verl-grpo-submit", "tailLines": 5000}
    ).json()
    assert len(logs["lines"]) >= 20 and "step:30/30" in logs["lines"][-1]
    listed = operator.get(f"/clusters/{TAG}/jobs").json()["jobs"]
    assert ("verl-grpo", "RayJob", "Succeeded") in [(job["name"], job["kind"], job["phase"]) for job in listed]

    delete(operator, "verl-grpo")

    assert store.list("", "v1", "pods", "default", f"{JOB_LABEL}=verl-grpo") == []
    gone = operator.get(f"/clusters/{TAG}/jobs/verl-grpo")
    assert (gone.status_code, gone.json()["code"]) == (404, "JobNotFound")


def test_a_ray_cluster_stays_up_with_its_head_and_worker_until_deleted(cluster, operator, store) -> None:
    submitted = operator.post(f"/clusters/{TAG}/jobs", json={"name": "ray-dev", **RAY_CLUSTER})
    assert submitted.status_code == 201, submitted.text

    running = until(operator, "ray-dev", lambda job: job["phase"] == "Running" and len(job["pods"]) == 2)
    assert (running["kind"], [pod["phase"] for pod in running["pods"]]) == ("RayCluster", ["Running", "Running"])
    assert running.get("restartBudget") is None

    delete(operator, "ray-dev")

    assert store.list("", "v1", "pods", "default", f"{JOB_LABEL}=ray-dev") == []


def test_refusals_say_what_to_change(cluster, operator, store) -> None:
    body = {"kind": "RayJob", "image": "verl:1", "command": ["python3", "train.py"], "instanceType": INSTANCE_TYPE}

    too_many = operator.post(f"/clusters/{TAG}/jobs", json={"name": "big", **body, "gpusPerNode": 4})
    assert too_many.status_code == 400 and "at most 1" in too_many.json()["message"]
    elsewhere = operator.post(f"/clusters/{TAG}/jobs", json={"name": "p5", **body, "instanceType": "ml.p5.48xlarge"})
    assert elsewhere.status_code == 400 and INSTANCE_TYPE in elsewhere.json()["message"]
    no_group = operator.post(
        f"/clusters/{TAG}/jobs", json={"name": "g", **body, "instanceType": None, "instanceGroup": "nope"}
    )
    assert no_group.status_code == 400 and "instanceGroup" in no_group.json()["message"]
    hyperpod_only = operator.post(
        f"/clusters/{TAG}/jobs", json={"name": "rp", **body, "elastic": {"minReplicas": 1, "maxReplicas": 2}}
    )
    assert hyperpod_only.status_code == 400 and "HyperPodPyTorchJob only" in hyperpod_only.json()["message"]
    assert operator.post(f"/clusters/{TAG}/jobs", json={"name": "twice", **body}).status_code == 201
    again = operator.post(f"/clusters/{TAG}/jobs", json={"name": "twice", **body})
    assert (again.status_code, again.json()["code"]) == (409, "JobNameInUse")


@pytest.mark.parametrize(
    ("group", "plural", "namespace", "name", "code", "names"),
    [
        ("apps", "deployments", "kuberay-operator", "kuberay-operator", "FeatureNotEnabled", "kuberayOperator"),
        ("", "persistentvolumeclaims", "default", "s3-claim", "StorageClaimMissing", "POST /clusters/ray/storage"),
    ],
)
def test_a_missing_operator_or_claim_is_refused_naming_what_to_enable(
    cluster, operator, store, group: str, plural: str, namespace: str, name: str, code: str, names: str
) -> None:
    gone = store.get(group, "v1", plural, namespace, name)
    assert gone is not None
    store.delete(group, "v1", plural, namespace, name)
    try:
        body = {"name": "refused", **RAY_CLUSTER}
        refused = operator.post(f"/clusters/{TAG}/jobs", json=body)
    finally:
        gone["metadata"].pop("resourceVersion", None)
        store.put(gone)

    assert (refused.status_code, refused.json()["code"]) == (409, code)
    assert names in refused.json()["message"]
