"""Issue 14's acceptance, recipe by recipe: every shipped recipe submitted through the API → its pods Running → at
least 20 of its log lines received over the WebSocket (`/ws`, the real `ws` handlers) → Succeeded → delete (plan and
confirmation) removes its pods. A recipe added as a data file without values here fails the test."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from sandbox.server.app import build_app
from tests.e2e.test_live_logs import read_lines, receive

TAG = "reclogs"
INSTANCE_TYPE = "ml.g6.4xlarge"
JOB_LABEL = "instantstart.aws/job"
VALUES: dict[str, dict[str, Any]] = {
    "pytorch-script": {"script": "/s3/code/train.py", "dataset": "s3://data-bkt/ds", "outputPath": "s3://data-bkt/o"},
    "llama-factory": {"model": "Qwen/Qwen2.5-0.5B", "dataset": "alpaca_en_demo", "outputDir": "/s3/out/lf"},
    "ms-swift": {"model": "Qwen/Qwen2.5-0.5B", "dataset": "/s3/datasets/sft.jsonl", "outputDir": "/s3/out/swift"},
    "verl": {
        "model": "Qwen/Qwen2.5-0.5B-Instruct",
        "trainFiles": "/s3/datasets/gsm8k/train.parquet",
        "valFiles": "/s3/datasets/gsm8k/test.parquet",
        "outputDir": "/s3/out/verl",
        "nodes": 2,
    },
}
# The pod whose log is the job's story: a Ray job's driver writes to its submitter pod.
LOGGING_POD = {"verl": "{name}-submit"}


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    features = {"trainingOperator": {"enabled": True}, "kuberayOperator": {"enabled": True}}
    running_sandbox.build_cluster(TAG, instances=2, storage=True, features=features)
    return TAG


@pytest.fixture(scope="module")
def sockets(running_sandbox) -> Iterator[TestClient]:
    with TestClient(build_app(running_sandbox.sandbox)) as client:
        yield client


@pytest.fixture
def watched_steps(running_sandbox) -> Iterator[None]:
    """Steps of 0.05 s: a job writes its lines over a second or two while the subscriber watches."""
    simulators = (running_sandbox.sandbox.training, running_sandbox.sandbox.kuberay)
    before = [simulator.seconds_per_line for simulator in simulators]
    for simulator in simulators:
        simulator.seconds_per_line = 0.05
    yield
    for simulator, seconds in zip(simulators, before, strict=True):
        simulator.seconds_per_line = seconds


def job(api: Any, name: str, done: Any, limit: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while True:
        detail = api.get(f"/clusters/{TAG}/jobs/{name}").json()
        if done(detail) or time.monotonic() > deadline:
            return detail
        time.sleep(0.05)


def test_every_shipped_recipe_has_values_here(running_sandbox) -> None:
    with running_sandbox.client("sandbox-viewer") as api:
        assert sorted(recipe["name"] for recipe in api.get("/recipes").json()["recipes"]) == sorted(VALUES)


@pytest.mark.parametrize("recipe", sorted(VALUES))
def test_a_recipes_job_streams_its_log_over_the_websocket_succeeds_and_delete_removes_its_pods(
    running_sandbox, cluster, sockets, watched_steps, recipe
) -> None:
    name = f"{recipe}-live"
    body = {"recipe": recipe, "name": name, "instanceType": INSTANCE_TYPE, "values": VALUES[recipe]}
    with running_sandbox.client("sandbox-operator") as api:
        submitted = api.post(f"/clusters/{TAG}/jobs/from-recipe", json=body)
        assert submitted.status_code == 201, submitted.text
        running = job(api, name, lambda detail: detail["phase"] == "Running" and bool(detail["pods"]))
        assert running["phase"] == "Running" and {pod["phase"] for pod in running["pods"]} == {"Running"}

        subscription = {"action": "subscribe", "clusterTag": TAG, "jobName": name}
        if recipe in LOGGING_POD:
            subscription["pod"] = LOGGING_POD[recipe].format(name=name)
        with sockets.websocket_connect("/ws?token=sandbox-viewer") as socket:
            socket.send_text(json.dumps(subscription))
            assert receive(socket)["type"] == "subscribed"
            lines = read_lines(socket, 20)
        assert len(lines) >= 20, lines

        finished = job(api, name, lambda detail: detail["phase"] in ("Succeeded", "Failed"))
        assert finished["phase"] == "Succeeded"

        plan = api.delete(f"/clusters/{TAG}/jobs/{name}", params={"dryRun": "true"}).json()
        deleted = api.delete(f"/clusters/{TAG}/jobs/{name}", params={"confirmationToken": plan["confirmationToken"]})
        assert deleted.status_code == 200, deleted.text
        gone = api.get(f"/clusters/{TAG}/jobs/{name}")
        assert (gone.status_code, gone.json()["code"]) == (404, "JobNotFound")
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    assert store.list("", "v1", "pods", "default", f"{JOB_LABEL}={name}") == []
