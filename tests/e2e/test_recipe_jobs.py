"""Recipes through the API in the sandbox: each shipped recipe submitted → pods Running → Succeeded; a dry run
renders without submitting, and refuses what the submit would; a bad value is a 400 naming the parameter; the
caller's last values come back; and the same through the MCP tools alone."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from mcp import Client

from controlplane.core.training.recipes import shipped_recipes
from controlplane.models.training import RAY_KINDS
from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi

TAG = "recipes"
INSTANCE_TYPE = "ml.g6.4xlarge"
# Each recipe the training operator runs, with its own example (the Ray recipes need KubeRay: test_recipe_live_logs).
VALUES: dict[str, dict[str, Any]] = {
    name: recipe.example for name, recipe in shipped_recipes().items() if recipe.kind not in RAY_KINDS
}


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, storage=True, features={"trainingOperator": {"enabled": True}})
    return TAG


@pytest.fixture(autouse=True)
def quick_steps(running_sandbox) -> Iterator[None]:
    training = running_sandbox.sandbox.training
    before = training.seconds_per_line
    training.seconds_per_line = 0.02
    yield
    training.seconds_per_line = before


def submission(recipe: str, name: str, **values: Any) -> dict[str, Any]:
    return {"recipe": recipe, "name": name, "instanceType": INSTANCE_TYPE, "values": {**VALUES[recipe], **values}}


def until(api: httpx.Client, name: str, done: Callable[[dict[str, Any]], bool], limit: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while True:
        detail = api.get(f"/clusters/{TAG}/jobs/{name}").json()
        if done(detail) or time.monotonic() > deadline:
            return detail
        time.sleep(0.02)


@pytest.mark.parametrize("recipe", sorted(VALUES))
def test_each_recipe_is_submitted_runs_on_the_nodes_and_succeeds(running_sandbox, cluster, operator, recipe) -> None:
    name = f"{recipe}-job"
    submitted = operator.post(f"/clusters/{TAG}/jobs/from-recipe", json=submission(recipe, name))
    assert submitted.status_code == 201, submitted.text
    assert submitted.json()["detail"]["name"] == name

    running = until(operator, name, lambda job: job["phase"] == "Running" and bool(job["pods"]))
    assert [pod["phase"] for pod in running["pods"]] == ["Running"]
    finished = until(operator, name, lambda job: job["phase"] in ("Succeeded", "Failed"))
    assert finished["phase"] == "Succeeded"


def test_a_dry_run_returns_the_rendered_job_and_submits_nothing(running_sandbox, cluster, operator) -> None:
    body = submission("llama-factory", "dry", finetuningType="full", epochs=0.5)

    rendered = operator.post(f"/clusters/{TAG}/jobs/from-recipe", params={"dryRun": "true"}, json=body)

    assert rendered.status_code == 200, rendered.text
    job = rendered.json()["job"]
    assert job["command"][:2] == ["llamafactory-cli", "train"]
    assert {"--finetuning_type=full", "--num_train_epochs=0.5"} <= set(job["command"])
    assert "detail" not in rendered.json()
    assert operator.get(f"/clusters/{TAG}/jobs/dry").status_code == 404


def test_a_dry_run_for_an_instance_type_the_cluster_lacks_is_refused_as_the_submit_would_be(cluster, operator) -> None:
    """Issue 30, finding 2: the dry run answered with a plan to carry out, and the submit then refused it."""
    body = {**submission("llama-factory", "nowhere"), "instanceType": "ml.p5.48xlarge"}

    planned = operator.post(f"/clusters/{TAG}/jobs/from-recipe", params={"dryRun": "true"}, json=body)
    submitted = operator.post(f"/clusters/{TAG}/jobs/from-recipe", json=body)

    assert planned.status_code == submitted.status_code == 400, planned.text
    assert planned.json()["message"] == submitted.json()["message"]
    assert "has no nodes of instance type 'ml.p5.48xlarge'" in planned.json()["message"]


def test_a_bad_value_is_a_400_naming_the_parameter(running_sandbox, cluster, operator) -> None:
    refused = operator.post(f"/clusters/{TAG}/jobs/from-recipe", json=submission("ms-swift", "bad", nodes=0))

    assert refused.status_code == 400
    assert "Parameter 'nodes'" in refused.json()["message"]
    unknown = operator.post(f"/clusters/{TAG}/jobs/from-recipe", json={**submission("ms-swift", "x"), "recipe": "nemo"})
    assert (unknown.status_code, unknown.json()["code"]) == (404, "RecipeNotFound")


def test_the_callers_last_values_are_offered_again(running_sandbox, cluster, operator) -> None:
    body = submission("ms-swift", "remembered", learningRate=0.0002)
    assert operator.post(f"/clusters/{TAG}/jobs/from-recipe", json=body).status_code == 201

    offered = operator.get("/recipes/ms-swift").json()["lastValues"]

    assert offered["learningRate"] == 0.0002 and offered["model"] == "Qwen/Qwen2.5-0.5B"
    with running_sandbox.client("sandbox-admin") as admin:
        assert admin.get("/recipes/ms-swift").json()["lastValues"] == {}


def test_through_the_tools_alone_a_recipe_is_chosen_and_its_job_succeeds(running_sandbox, cluster) -> None:
    async def conversation() -> tuple[list[str], dict[str, Any], dict[str, Any]]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content
                return dict(result.structured_content)

            listed = await tool("recipe_list_all", {})
            recipe = await tool("recipe_get", {"recipeName": "pytorch-script"})
            await tool("job_submit_from_recipe", {"clusterTag": TAG, **submission("pytorch-script", "agent-recipe")})
            status = await tool("job_get_status", {"clusterTag": TAG, "jobName": "agent-recipe"})
            while status["phase"] not in ("Succeeded", "Failed"):
                await asyncio.sleep(0.05)
                status = await tool("job_get_status", {"clusterTag": TAG, "jobName": "agent-recipe"})
            return [r["name"] for r in listed["recipes"]], recipe, status

    names, recipe, status = asyncio.run(conversation())

    assert names == sorted(shipped_recipes())
    assert "script" in [parameter["name"] for parameter in recipe["parameters"]]
    assert status["phase"] == "Succeeded"
