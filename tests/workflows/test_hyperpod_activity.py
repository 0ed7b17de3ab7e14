"""HyperPod's own cluster events through the API: a deep health check's nodes' events, newest first, paged, filtered
by node, group and HyperPod operation; bad filters are a 400."""

from __future__ import annotations

import pytest

from tests.workflows.test_health_checks import check, finished, settle

TAG = "activity"


@pytest.fixture(scope="module")
def cluster(running_sandbox):
    running_sandbox.build_cluster(TAG, instances=2)
    return running_sandbox


def test_a_health_checks_node_events_filter_by_node_group_and_operation(cluster, monkeypatch):
    monkeypatch.setattr("tests.workflows.test_health_checks.TAG", TAG)
    with cluster.client("sandbox-admin") as api:
        first, second = settle(api, 2)
        assert finished(cluster, check(api, {"nodeIds": [first]}))["status"] == "SUCCEEDED"
        (newest, _) = api.get(f"/clusters/{TAG}/hyperpod-events", params={"nodeId": f"hyperpod-{first}"}).json()[
            "events"
        ]
        operation = {"operationId": newest["operationId"]}
        events = api.get(
            f"/clusters/{TAG}/hyperpod-events", params={"operationId": operation["operationId"], "limit": 1}
        ).json()
        assert len(events["events"]) == 1 and events["continue"]
        assert events["events"][0]["nodeId"] == first and "passed" in events["events"][0]["description"]
        rest = api.get(
            f"/clusters/{TAG}/hyperpod-events",
            params={"operationId": operation["operationId"], "continue": events["continue"]},
        ).json()
        assert [event["nodeId"] for event in rest["events"]] == [first]
        assert api.get(f"/clusters/{TAG}/hyperpod-events", params={"nodeId": second}).json()["events"] == []
        by_group = api.get(f"/clusters/{TAG}/hyperpod-events", params={"instanceGroup": "accelerated-worker"})
        assert len(by_group.json()["events"]) == 2


@pytest.mark.parametrize(
    "params", [{"nodeId": "nope"}, {"operationId": "op-1"}, {"instanceGroup": "-bad"}, {"group": "accelerated-worker"}]
)
def test_a_bad_filter_is_a_400_naming_it(cluster, params):
    with cluster.client("sandbox-viewer") as api:
        response = api.get(f"/clusters/{TAG}/hyperpod-events", params=params)
        assert response.status_code == 400, response.text
