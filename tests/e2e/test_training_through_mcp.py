"""Training acceptance in the sandbox: through the MCP tools alone a model is downloaded into the S3 claim, a
LLaMA-Factory recipe job is submitted on it (tracked in the sandbox's MLflow server), waited for to Succeeded and
its logs read; through the API, a chosen MLflow server's ARN and the experiment reach the job's environment and an
unknown server is refused naming the ones that exist."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi
from sandbox.aws.mlflow import SANDBOX_TRACKING_SERVER

TAG = "mcptrain"
REGION = "us-west-2"
INSTANCE_TYPE = "ml.g6.4xlarge"
MODEL = "Qwen/Qwen2.5-0.5B"
TRACKING_ARN_PREFIX = f"arn:aws:sagemaker:{REGION}:"
LLAMA_FACTORY = {"dataset": "alpaca_en_demo", "outputDir": "/s3/out/lf"}


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, storage=True, features={"trainingOperator": {"enabled": True}})
    return TAG


@pytest.fixture(autouse=True)
def quick_logs(running_sandbox):
    training = running_sandbox.sandbox.training
    before = training.seconds_per_line
    training.seconds_per_line = 0.02
    yield
    training.seconds_per_line = before


def recipe_job(name: str, **extra: Any) -> dict[str, Any]:
    values = {**LLAMA_FACTORY, "model": f"/s3/models/{MODEL}"}
    return {"recipe": "llama-factory", "name": name, "instanceType": INSTANCE_TYPE, "values": values, **extra}


def test_through_mcp_alone_a_model_is_downloaded_trained_on_with_llama_factory_and_its_logs_read(
    running_sandbox, cluster
) -> None:
    calls: list[str] = []

    async def conversation() -> list[str]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                calls.append(name)
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content
                return dict(result.structured_content)

            started = await tool("model_download_enhanced", {"clusterTag": TAG, "repoId": MODEL})
            operation = await tool("operation_wait", {"operationId": started["operationId"]})
            while operation["status"] in ("PENDING", "RUNNING"):
                operation = await tool("operation_wait", {"operationId": started["operationId"]})
            assert operation["status"] == "SUCCEEDED", operation
            contents = await tool("s3_storage_list_contents", {"clusterTag": TAG, "prefix": f"models/{MODEL}/"})
            assert contents["objects"], contents

            servers = await tool("mlflow_list_tracking_servers", {"clusterTag": TAG})
            tracking = {"trackingServer": servers["trackingServers"][0]["name"], "experiment": "qwen-sft"}
            submitted = await tool(
                "job_submit_from_recipe", {"clusterTag": TAG, **recipe_job("lf-agent", mlflow=tracking)}
            )
            assert submitted["job"]["environment"]["MLFLOW_EXPERIMENT_NAME"] == "qwen-sft"

            # The logs are read while it runs (live), as a person following it would.
            lines: list[str] = []
            status = await tool("job_get_status", {"clusterTag": TAG, "jobName": "lf-agent"})
            while status["phase"] not in ("Succeeded", "Failed"):
                if status["phase"] == "Running":
                    logs = await tool("job_get_logs", {"clusterTag": TAG, "jobName": "lf-agent", "tailLines": 1000})
                    lines = max(lines, logs["lines"], key=len)
                await asyncio.sleep(0.05)
                status = await tool("job_get_status", {"clusterTag": TAG, "jobName": "lf-agent"})
            assert status["phase"] == "Succeeded", status
            return lines

    lines = asyncio.run(conversation())

    assert calls[0] == "model_download_enhanced" and "job_get_logs" in calls
    assert len(lines) >= 3, lines


def test_a_chosen_tracking_server_reaches_the_jobs_environment(running_sandbox, cluster) -> None:
    with running_sandbox.client("sandbox-viewer") as viewer:
        listed = viewer.get(f"/clusters/{TAG}/mlflow-tracking-servers").json()
    assert [server["name"] for server in listed["trackingServers"]] == [SANDBOX_TRACKING_SERVER]
    arn = listed["trackingServers"][0]["arn"]
    assert arn.startswith(TRACKING_ARN_PREFIX) and listed["region"] == REGION
    tracking = {"trackingServer": SANDBOX_TRACKING_SERVER, "experiment": "demo/exp-1"}

    with running_sandbox.client("sandbox-operator") as operator:
        submitted = operator.post(f"/clusters/{TAG}/jobs/from-recipe", json=recipe_job("lf-tracked", mlflow=tracking))

    assert submitted.status_code == 201, submitted.text
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    (job,) = store.list(
        "sagemaker.amazonaws.com", "v1", "hyperpodpytorchjobs", label_selector="instantstart.aws/job=lf-tracked"
    )
    container = job["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]
    environment = {variable["name"]: variable["value"] for variable in container["env"]}
    assert environment["MLFLOW_TRACKING_URI"] == arn
    assert environment["MLFLOW_EXPERIMENT_NAME"] == "demo/exp-1"


def test_an_unknown_tracking_server_is_refused_naming_the_ones_that_exist(running_sandbox, cluster) -> None:
    tracking = {"trackingServer": "no-such-server", "experiment": "e"}

    with running_sandbox.client("sandbox-operator") as operator:
        refused = operator.post(f"/clusters/{TAG}/jobs/from-recipe", json=recipe_job("lf-refused", mlflow=tracking))
        gone = operator.get(f"/clusters/{TAG}/jobs/lf-refused")

    assert (refused.status_code, refused.json()["code"]) == (404, "MlflowTrackingServerNotFound")
    assert SANDBOX_TRACKING_SERVER in refused.json()["message"]
    assert gone.status_code == 404
