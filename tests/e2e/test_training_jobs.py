"""Training jobs through the API in the sandbox: submit → pods Running → logs → Succeeded; a killed process restarts
in place and the job still succeeds; delete removes the pods; refusals say what to change; the jobs role writes
nothing but jobs; and the same story through the MCP tools alone."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from kubernetes.client.exceptions import ApiException
from mcp import Client

from controlplane import wiring
from controlplane.adapters.k8s.client import KubernetesApiGateway
from controlplane.core.ports.eks import EksCluster
from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi
from tests.conftest import aws_client

TAG = "train"
REGION = "us-west-2"
INSTANCE_TYPE = "ml.g6.4xlarge"
JOB = {"image": "train:1", "nodes": 1, "gpusPerNode": 1, "instanceType": INSTANCE_TYPE}
# Finished pods (and their logs) stay, so a test reads them after the job ends.
KEEP_PODS = {"runPolicy": {"cleanPodPolicy": "None"}}


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, storage=True, features={"trainingOperator": {"enabled": True}})
    return TAG


@pytest.fixture
def step_seconds(running_sandbox) -> Iterator[Callable[[float], None]]:
    """Lengthen the simulated jobs' steps for one test."""
    training = running_sandbox.sandbox.training
    before = training.seconds_per_line

    def set_seconds(seconds: float) -> None:
        training.seconds_per_line = seconds

    yield set_seconds
    training.seconds_per_line = before


def until(api: httpx.Client, name: str, done: Callable[[dict[str, Any]], bool], limit: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while True:
        detail = api.get(f"/clusters/{TAG}/jobs/{name}").json()
        if done(detail) or time.monotonic() > deadline:
            return detail
        time.sleep(0.05)


def test_a_job_runs_on_the_nodes_writes_logs_and_succeeds(running_sandbox, cluster, operator, step_seconds) -> None:
    step_seconds(0.1)
    submitted = operator.post(f"/clusters/{TAG}/jobs", json={"name": "hello", **JOB, **KEEP_PODS})
    assert submitted.status_code == 201, submitted.text
    assert submitted.json()["restartBudget"]["restartsBeforeFullJobRestart"] == 3

    running = until(operator, "hello", lambda job: job["phase"] == "Running" and bool(job["pods"]))
    assert running["phase"] == "Running"
    assert [pod["phase"] for pod in running["pods"]] == ["Running"]
    assert running["pods"][0]["node"].startswith("hyperpod-i-")
    time.sleep(0.5)
    logs = operator.get(f"/clusters/{TAG}/jobs/hello/logs", params={"tailLines": 3}).json()
    assert logs["pod"] == running["pods"][0]["name"]
    assert 1 <= len(logs["lines"]) <= 3 and "step" in logs["lines"][-1]

    finished = until(operator, "hello", lambda job: job["phase"] in ("Succeeded", "Failed"))
    assert finished["phase"] == "Succeeded"
    assert finished["restartBudget"]["restarts"] == 0
    assert any(event["reason"] == "Completed" for event in finished["events"])
    all_lines = operator.get(f"/clusters/{TAG}/jobs/hello/logs", params={"tailLines": 5000}).json()["lines"]
    assert len(all_lines) == 30
    listed = operator.get(f"/clusters/{TAG}/jobs").json()
    assert {"name": "hello", "phase": "Succeeded"}.items() <= next(
        j for j in listed["jobs"] if j["name"] == "hello"
    ).items()


def test_a_killed_process_restarts_in_place_and_the_job_still_succeeds(running_sandbox, cluster, operator) -> None:
    fault = {"clusterTag": TAG, "jobName": "killed", "afterLines": 5}
    killed = httpx.post(f"{running_sandbox.base_url}/sandbox/job-faults", json=fault)
    assert killed.status_code == 204, killed.text
    assert operator.post(f"/clusters/{TAG}/jobs", json={"name": "killed", **JOB, **KEEP_PODS}).status_code == 201

    finished = until(operator, "killed", lambda job: job["phase"] in ("Succeeded", "Failed"))

    assert finished["phase"] == "Succeeded"
    budget = finished["restartBudget"]
    assert (budget["restarts"], budget["restartsBeforeFullJobRestart"], budget["fullJobRestarts"]) == (1, 3, 0)
    assert [pod["restarts"] for pod in finished["pods"]] == [1]
    lines = operator.get(f"/clusters/{TAG}/jobs/killed/logs", params={"tailLines": 5000}).json()["lines"]
    assert any("restarted in place" in line for line in lines)


def test_delete_removes_the_job_and_its_pods(running_sandbox, cluster, operator, step_seconds) -> None:
    step_seconds(1)
    assert operator.post(f"/clusters/{TAG}/jobs", json={"name": "doomed", **JOB}).status_code == 201
    until(operator, "doomed", lambda job: bool(job["pods"]))

    plan = operator.delete(f"/clusters/{TAG}/jobs/doomed").json()
    assert plan["confirmationToken"] and plan["actions"][0]["name"] == "default/doomed"
    deleted = operator.delete(f"/clusters/{TAG}/jobs/doomed", params={"confirmationToken": plan["confirmationToken"]})
    assert (deleted.status_code, deleted.json()["dryRun"]) == (200, False)

    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    assert store.list("", "v1", "pods", "default", "instantstart.aws/job=doomed") == []
    gone = operator.get(f"/clusters/{TAG}/jobs/doomed")
    assert (gone.status_code, gone.json()["code"]) == (404, "JobNotFound")


def test_refusals_say_what_to_change(running_sandbox, cluster, operator) -> None:
    too_many = operator.post(f"/clusters/{TAG}/jobs", json={"name": "big", **{**JOB, "gpusPerNode": 4}})
    assert too_many.status_code == 400 and "at most 1" in too_many.json()["message"]
    elsewhere = operator.post(f"/clusters/{TAG}/jobs", json={"name": "p5", **{**JOB, "instanceType": "ml.p5.48xlarge"}})
    assert elsewhere.status_code == 400 and INSTANCE_TYPE in elsewhere.json()["message"]
    assert operator.post(f"/clusters/{TAG}/jobs", json={"name": "twice", **JOB}).status_code == 201
    again = operator.post(f"/clusters/{TAG}/jobs", json={"name": "twice", **JOB})
    assert (again.status_code, again.json()["code"]) == (409, "JobNameInUse")
    viewer = running_sandbox.client("sandbox-viewer").post(f"/clusters/{TAG}/jobs", json={"name": "nope", **JOB})
    assert viewer.status_code == 403


def test_the_jobs_role_writes_job_objects_and_nothing_else(running_sandbox, cluster) -> None:
    """The API's job writes are signed as the jobs role, whose access entry names only the job writers' group:
    RBAC lets it create and delete jobs, and refuses any other write."""
    eks = aws_client("eks", region_name=REGION).describe_cluster(name=f"eks-cluster-{TAG}")["cluster"]
    target = EksCluster(eks["name"], eks["arn"], "ACTIVE", "1.34", eks["endpoint"], None, None, None)
    writer = KubernetesApiGateway(wiring.kubernetes_job_writers())
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "sneaky", "namespace": "default"}}

    with pytest.raises(ApiException) as refused:
        writer.apply(target, REGION, [config_map])

    assert refused.value.status == 403


def test_through_the_tools_alone_a_job_is_submitted_followed_to_the_end_read_and_deleted(running_sandbox, cluster):
    async def conversation() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], bool]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content
                return dict(result.structured_content)

            await tool("job_submit", {"clusterTag": TAG, "name": "agent", **JOB, **KEEP_PODS})
            status = await tool("job_get_status", {"clusterTag": TAG, "jobName": "agent"})
            while status["phase"] not in ("Succeeded", "Failed"):
                await asyncio.sleep(0.05)
                status = await tool("job_get_status", {"clusterTag": TAG, "jobName": "agent"})
            logs = await tool("job_get_logs", {"clusterTag": TAG, "jobName": "agent", "tailLines": 5})
            plan = await tool("job_delete", {"clusterTag": TAG, "jobName": "agent"})
            token = plan["confirmationToken"]
            deleted = await tool("job_delete", {"clusterTag": TAG, "jobName": "agent", "confirmationToken": token})
            listed = await tool("job_list_all", {"clusterTag": TAG})
            return status, logs, deleted, any(job["name"] == "agent" for job in listed["jobs"])

    status, logs, deleted, still_listed = asyncio.run(conversation())

    assert status["phase"] == "Succeeded"
    assert len(logs["lines"]) == 5
    assert (deleted["dryRun"], still_listed) == (False, False)
