"""A seed-style conversation through the MCP tools alone: after a deep health check, the agent reads a node's events
with one tool and gets HyperPod's and Kubernetes' merged (each with its source, newest first), pages through them one
at a time to the same list, and narrows to the check's operation (HyperPod's alone)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tests.mcp_conversation import Tool, converse

TAG = "mcpevents"


def test_a_nodes_events_of_both_sources_merge_page_and_filter_through_one_tool(running_sandbox):
    running_sandbox.build_cluster(TAG, instances=1)
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    [node] = [item["metadata"]["name"] for item in store.list("", "v1", "nodes")]
    store.put(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{node}.pressure", "namespace": "default", "uid": "k8s-pressure"},
            "involvedObject": {"kind": "Node", "name": node},
            "type": "Warning",
            "reason": "EvictionThresholdMet",
            "message": "Attempting to reclaim memory",
            "lastTimestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "count": 2,
        }
    )

    async def story(tool: Tool) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        request = {"clusterTag": TAG, "nodeIds": [node]}
        _, plan = await tool("hyperpod_health_check", request)
        _, operation = await tool("hyperpod_health_check", {**request, "confirmationToken": plan["confirmationToken"]})
        while operation["status"] in ("PENDING", "RUNNING"):
            _, operation = await tool("operation_wait", {"operationId": operation["operationId"]})
        _, listed = await tool("hyperpod_list_cluster_events", {"clusterTag": TAG, "nodeId": node})
        paged: list[dict[str, Any]] = []
        arguments: dict[str, Any] = {"clusterTag": TAG, "nodeId": node, "limit": 1}
        while True:
            _, page = await tool("hyperpod_list_cluster_events", arguments)
            paged += page["events"]
            if not page.get("continue"):
                break
            arguments = {**arguments, "continue": page["continue"]}
        operation_id = next(event["operationId"] for event in listed["events"] if event.get("operationId"))
        _, of_check = await tool("hyperpod_list_cluster_events", {"clusterTag": TAG, "operationId": operation_id})
        return listed["events"], paged, of_check["events"]

    (events, paged, of_check), calls, _ = converse(running_sandbox, story, token="sandbox-admin")
    assert [event["source"] for event in events] == ["hyperpod", "hyperpod", "kubernetes"]
    # Newest first by time: the two sources write times at different precisions ("…:40Z", "…:40.376000Z"), so the
    # strings do not sort as the instants do.
    times = [datetime.fromisoformat(event["time"]) for event in events]
    assert times == sorted(times, reverse=True)
    pressure = events[-1]
    assert (pressure["eventId"], pressure["reason"], pressure["object"]) == (
        "k8s-pressure",
        "EvictionThresholdMet",
        f"Node/{node}",
    )
    assert paged == events
    assert len(of_check) == 2 and {event["source"] for event in of_check} == {"hyperpod"}
    assert calls.count("hyperpod_list_cluster_events") == 2 + len(events)
