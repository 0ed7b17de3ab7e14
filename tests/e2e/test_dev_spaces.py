"""Dev spaces through the agent's tools, as in the seed's conversations: enable the spaces add-on, create a JupyterLab
space with a GPU and the S3 claim at ~/workspace/s3, open it once Running, stop and start it, and delete it only
after the person confirms; and the refusals a person meets first."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.mcp_conversation import Tool, converse

TAG = "spaces"


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, storage=True, features={"devSpaces": {"enabled": True}})
    return TAG


async def until(tool: Tool, status: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        _, listed = await tool("space_list", {"clusterTag": TAG})
        (space,) = [s for s in listed["spaces"] if s["name"] == "lab"]
        if space["status"] == status:
            return space
        time.sleep(0.1)
    raise AssertionError(f"space lab never reached {status}")


def test_an_agent_creates_opens_stops_starts_and_deletes_a_space(running_sandbox, cluster):
    async def story(tool: Tool) -> dict[str, Any]:
        _, created = await tool("space_create", {"clusterTag": TAG, "name": "lab", "appType": "jupyterlab", "gpus": 1})
        running = await until(tool, "Running")
        await tool("space_set_status", {"clusterTag": TAG, "name": "lab", "desiredStatus": "Stopped"})
        stopped = await until(tool, "Stopped")
        await tool("space_set_status", {"clusterTag": TAG, "name": "lab", "desiredStatus": "Running"})
        await until(tool, "Running")
        _, plan = await tool("space_delete", {"clusterTag": TAG, "name": "lab"})
        _, listed = await tool("space_list", {"clusterTag": TAG})
        assert [s["name"] for s in listed["spaces"]] == ["lab"]
        _, deleted = await tool(
            "space_delete", {"clusterTag": TAG, "name": "lab", "confirmationToken": plan["confirmationToken"]}
        )
        _, after = await tool("space_list", {"clusterTag": TAG})
        return {
            "created": created,
            "running": running,
            "stopped": stopped,
            "plan": plan,
            "deleted": deleted,
            "after": after,
        }

    result, _, _ = converse(running_sandbox, story)
    created, running = result["created"], result["running"]
    assert (created["status"], created["gpus"], created["image"]) == (
        "Starting",
        1,
        "public.ecr.aws/sagemaker/sagemaker-distribution:latest-gpu",
    )
    assert running["s3MountPath"] == "/home/sagemaker-user/workspace/s3"
    assert "kubectl port-forward -n default service/workspace-lab-service 8888:8888" in running["open"]
    assert result["stopped"]["open"] is None
    assert result["plan"]["dryRun"] is True
    assert result["deleted"]["dryRun"] is False
    assert result["after"]["spaces"] == []
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    assert store.get("workspace.jupyter.org", "v1alpha1", "workspaces", "default", "lab") is None


def test_an_image_not_allowed_is_refused_and_nothing_is_created(running_sandbox, cluster):
    body = {"name": "custom", "image": "docker.io/library/python:3.12"}
    with running_sandbox.client("sandbox-operator") as api:
        refused = api.post(f"/clusters/{TAG}/spaces", json=body)
        listed = api.get(f"/clusters/{TAG}/spaces").json()["spaces"]
    assert refused.status_code == 400, refused.text
    assert "sagemaker-distribution:latest-cpu" in refused.json()["message"]
    assert "custom" not in {s["name"] for s in listed}


def test_more_gpus_than_a_node_has_is_refused(running_sandbox, cluster):
    with running_sandbox.client("sandbox-operator") as api:
        refused = api.post(f"/clusters/{TAG}/spaces", json={"name": "big", "gpus": 8})
    assert refused.status_code == 400, refused.text
    assert "at most 1" in refused.json()["message"]
