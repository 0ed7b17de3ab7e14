"""Drift in the sandbox: a cluster as the control plane built it is in sync; a feature's role deleted and a group
resized behind its back are both reported, by field path, by one reconcile; the last report is stored."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from mcp import Client

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi

TAG = "drifty"


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, instances=2, features={"observability": {"enabled": True}})
    return TAG


def out_of_band(running_sandbox, change: dict[str, object]) -> None:
    response = httpx.post(f"{running_sandbox.base_url}/sandbox/out-of-band", json=change)
    assert response.status_code == 204, response.text


def test_out_of_band_role_deletion_and_resize_are_drift_in_one_reconcile(running_sandbox, cluster) -> None:
    with running_sandbox.client("sandbox-operator") as api:
        before = api.post(f"/clusters/{TAG}/drift")
        assert before.status_code == 200, before.text
        assert before.json()["findings"] == []
        assert before.json()["inSync"] is True

        features = api.get(f"/clusters/{TAG}/features").json()["features"]
        role_name = features["observability"]["resources"][1].removeprefix("role ")
        out_of_band(running_sandbox, {"action": "delete-role", "roleName": role_name})
        resize = {"clusterName": f"hp-cluster-{TAG}", "instanceGroup": "worker-group-1", "instanceCount": 1}
        groups = api.get(f"/clusters/{TAG}/instance-groups").json()
        resize["instanceGroup"] = groups["instanceGroups"][0]["instanceGroupName"]
        out_of_band(running_sandbox, {"action": "resize-group", **resize})

        report = api.post(f"/clusters/{TAG}/drift").json()

    found = {finding["path"]: (finding["recorded"], finding["live"]) for finding in report["findings"]}
    assert found == {
        "features.observability.role": (role_name, None),
        f"instanceGroups[{resize['instanceGroup']}].instanceCount": (2, 1),
    }
    assert report["inSync"] is False
    with running_sandbox.client("sandbox-viewer") as viewer:
        assert viewer.get(f"/clusters/{TAG}/drift").json() == report


def test_a_viewer_reads_drift_but_may_not_run_a_check(running_sandbox, cluster) -> None:
    with running_sandbox.client("sandbox-viewer") as viewer:
        refused = viewer.post(f"/clusters/{TAG}/drift")

    assert refused.status_code == 403


def test_out_of_band_control_explains_a_bad_body(running_sandbox) -> None:
    response = httpx.post(f"{running_sandbox.base_url}/sandbox/out-of-band", json={"action": "reboot-everything"})

    assert response.status_code == 400
    assert "resize-group" in response.json()["message"]


def test_through_the_tools_an_agent_checks_drift_and_reads_it_back(running_sandbox, cluster) -> None:
    async def conversation() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            annotations = {name: tools[name].annotations for name in ("cluster_drift_get", "cluster_drift_check")}

            async def tool(name: str) -> dict[str, Any]:
                result = await client.call_tool(name, {"clusterTag": TAG})
                assert not result.is_error, result.content
                return dict(result.structured_content)

            checked = await tool("cluster_drift_check")
            return checked, await tool("cluster_drift_get"), annotations

    checked, read, annotations = asyncio.run(conversation())

    assert read == checked
    assert annotations["cluster_drift_get"].read_only_hint is True
    # Left out: the specification's default, false (the list carries only the hints that differ from it).
    assert annotations["cluster_drift_check"].read_only_hint is None
    assert annotations["cluster_drift_check"].destructive_hint is False
