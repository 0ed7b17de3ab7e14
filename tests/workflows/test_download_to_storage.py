"""Downloads end to end in the sandbox: the downloader Job puts the repository into the claim's bucket and the
operation ends with it; the token is in no response, record, execution or log; a failed Job fails the operation
with its reason and a resume succeeds; a fault in any step, then resume."""

from __future__ import annotations

import logging

import pytest

from controlplane.models.operations import OperationKind
from tests.conftest import aws_client
from tests.workflows.faults import fail_each_step_in_turn

TAG = "downloads"
TOKEN = "hf_SandboxToken4f1e2d3c4b5a69788796a5b4"


@pytest.fixture(scope="module")
def cluster(running_sandbox):
    running_sandbox.build_cluster(TAG, hyperpod=False, storage=True)
    return running_sandbox


def download(cluster, body: dict) -> dict:
    with cluster.client("sandbox-operator") as api:
        response = api.post(f"/clusters/{TAG}/downloads", json=body)
        assert response.status_code == 202, response.text
        assert TOKEN not in response.text
        return cluster.wait_terminal(response.json()["operationId"])


def contents(cluster, prefix: str) -> list[str]:
    with cluster.client("sandbox-viewer") as api:
        response = api.get(f"/clusters/{TAG}/storage/contents", params={"prefix": prefix})
        assert response.status_code == 200, response.text
        return [item["key"] for item in response.json()["objects"]]


def test_a_download_puts_the_repository_in_the_claim_and_ends_with_its_job(cluster):
    operation = download(cluster, {"repoId": "Qwen/Qwen2.5-0.5B"})
    assert (operation["kind"], operation["status"]) == ("download_to_storage", "SUCCEEDED"), operation.get("error")
    bucket = f"instantstart-{TAG}-123456789012-us-west-2"
    assert operation["stages"][0]["message"] == f"Qwen/Qwen2.5-0.5B is in s3://{bucket}/models"
    assert contents(cluster, "models/Qwen/") == [
        "models/Qwen/Qwen2.5-0.5B/README.md",
        "models/Qwen/Qwen2.5-0.5B/config.json",
    ]


def test_the_token_is_in_the_secret_only(cluster, caplog):
    caplog.set_level(logging.DEBUG)
    operation = download(cluster, {"repoId": "meta-llama/Llama-3.2-1B", "token": TOKEN})
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    with cluster.client("sandbox-operator") as api:
        for path in (f"/operations/{operation['operationId']}", f"/operations?clusterTag={TAG}", "/audit"):
            response = api.get(path)
            assert response.status_code == 200 and TOKEN not in response.text, path
    dynamodb = aws_client("dynamodb", region_name="us-east-1")
    for table in dynamodb.list_tables()["TableNames"]:
        assert TOKEN not in str(dynamodb.scan(TableName=table)["Items"]), table
    sfn = aws_client("stepfunctions", region_name="us-east-1")
    for machine in sfn.list_state_machines()["stateMachines"]:
        for execution in sfn.list_executions(stateMachineArn=machine["stateMachineArn"])["executions"]:
            assert TOKEN not in str(sfn.describe_execution(executionArn=execution["executionArn"]))
    assert TOKEN not in caplog.text
    store = cluster.sandbox.emulator.store(f"eks-cluster-{TAG}")
    secrets = [s for s in store.list("", "v1", "secrets", "default") if s["metadata"]["name"].endswith("-token")]
    assert len(secrets) == 1


def test_a_failed_job_fails_the_operation_with_its_reason_and_a_resume_succeeds(cluster):
    cluster.sandbox.downloads.fail("google/gemma-3-1b-it", "401 Client Error: gated repository")
    operation = download(cluster, {"repoId": "google/gemma-3-1b-it"})
    assert operation["status"] == "FAILED"
    assert operation["error"]["code"] == "DownloadFailedError"
    assert "BackoffLimitExceeded" in operation["error"]["message"]
    assert "401 Client Error: gated repository" in operation["error"]["message"]
    assert contents(cluster, "models/google/") == []
    with cluster.client() as api:
        assert api.post(f"/operations/{operation['operationId']}/resume").status_code == 202
    assert cluster.wait_terminal(operation["operationId"])["status"] == "SUCCEEDED"
    assert len(contents(cluster, "models/google/gemma-3-1b-it/")) == 2


def test_every_download_step_fails_once_in_turn_and_resume_downloads_once(cluster):
    repo = "fault/every-step"

    def start() -> str:
        with cluster.client("sandbox-operator") as api:
            response = api.post(f"/clusters/{TAG}/downloads", json={"repoId": repo, "prefix": "faults"})
        return str(response.json()["operationId"])

    fail_each_step_in_turn(cluster, OperationKind.DOWNLOAD_TO_STORAGE, start)
    assert len(contents(cluster, f"faults/{repo}/")) == 2
    jobs = cluster.sandbox.emulator.store(f"eks-cluster-{TAG}").list("batch", "v1", "jobs", "default")
    assert (
        len([job for job in jobs if job["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] == repo]) == 1
    )
