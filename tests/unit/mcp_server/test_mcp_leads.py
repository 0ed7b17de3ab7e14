"""A result leads with its finding (issue 30, finding 5): a cluster not ready says what it misses, a drift report
what differs, a read the state of what it reads or how many items its page holds, and a finished operation names the
tool to call next (the pipeline's next stage)."""

from __future__ import annotations

import pytest

from api.app import openapi_document
from controlplane.models.operations import OperationKind
from mcp_server.leads import NEXT_TOOL, lead
from mcp_server.tools import ToolSpec, tools_from_openapi


@pytest.fixture(scope="module")
def specs() -> dict[str, ToolSpec]:
    return {spec.name: spec for spec in tools_from_openapi(openapi_document())}


def first(specs: dict[str, ToolSpec], tool: str, body: dict, arguments: dict | None = None) -> str:
    return lead(specs[tool], arguments or {"clusterTag": "demo"}, body)


def test_a_cluster_not_ready_leads_with_what_is_missing(specs):
    missing = ["stage 'hyperpod'", "stage 'storage'", "at least one node", "add-on vpc-cni"]
    body = {"clusterTag": "demo", "ready": False, "missing": missing, "nodesReady": 0, "gpusAllocatable": 0}

    assert first(specs, "cluster_get_status", body) == (
        "Cluster demo is not ready; missing: stage 'hyperpod'; stage 'storage'; at least one node and 1 more."
    )


def test_a_ready_cluster_says_what_it_has(specs):
    body = {"clusterTag": "demo", "ready": True, "missing": [], "nodesReady": 2, "gpusAllocatable": 8}

    assert (
        first(specs, "cluster_get_status", body) == "Cluster demo is ready for work: 2 nodes Ready, 8 GPUs allocatable."
    )


def test_drift_leads_with_what_differs_and_what_is_stuck(specs):
    report = {
        "clusterTag": "demo",
        "inSync": False,
        "findings": [
            {"path": "instanceGroups[gpu].instanceCount", "recorded": 2, "live": 1, "message": "gpu has 1 node, not 2."}
        ],
        "stuckOperations": [{"operationId": "op-1", "kind": "update_instance_group"}],
    }

    assert first(specs, "cluster_drift_check", report) == (
        "Cluster demo is out of sync; 1 fields drifted: gpu has 1 node, not 2; stuck operations (call "
        "operation_resume with each operationId): op-1."
    )
    assert first(specs, "cluster_drift_get", {"clusterTag": "demo", "inSync": True}) == (
        "Cluster demo is in sync: nothing drifted and no operation is stuck."
    )


def test_a_page_says_how_many_items_it_holds_and_whether_more_follow(specs):
    assert first(specs, "cluster_list_all", {"clusters": [{}, {}]}, {}) == "cluster_list_all: 2 clusters on this page."
    assert first(specs, "job_list_all", {"clusterTag": "demo", "jobs": [{}], "continue": "c1"}) == (
        "job_list_all: 1 jobs on this page; more follow: call job_list_all again with continue."
    )


def test_a_read_leads_with_the_state_of_what_it_reads(specs):
    assert first(specs, "job_get_status", {"name": "train", "phase": "Running"}) == "job_get_status: train is Running."


def test_a_finished_stage_names_the_next_stage_of_the_pipeline(specs):
    operation = {"operationId": "op-1", "kind": "create_eks_cluster", "target": "demo", "status": "SUCCEEDED"}

    assert first(specs, "operation_wait", operation, {"operationId": "op-1"}) == (
        "Operation op-1 SUCCEEDED; next, call cluster_configure_dependencies with clusterTag=demo for stage 3."
    )


def test_every_operation_kind_names_a_next_tool_that_exists(specs):
    assert set(NEXT_TOOL) == {kind.value for kind in OperationKind}
    assert {tool for tool, _ in NEXT_TOOL.values()} <= set(specs)


def test_an_overview_leads_with_what_is_unhealthy_or_pending(specs):
    overview = {
        "clusterTag": "demo",
        "nodesTotal": 4,
        "nodesUnhealthy": 1,
        "podsTotal": 9,
        "pendingByReason": {"Unschedulable": 2, "ImagePull": 1},
        "warningEventsTotal": 5,
        "nodes": [],
        "pendingPods": [],
    }

    assert first(specs, "cluster_get_overview", overview) == (
        "Cluster demo: 1 of 4 nodes unhealthy, 3 pods pending, 5 warning events."
    )


def test_identity_says_who_the_caller_acts_as(specs):
    body = {"principal": "alice", "source": "cognito", "role": "operator", "via": "mcp"}

    assert first(specs, "identity_get", body, {}) == "You act as alice with role operator."


def test_a_list_without_pages_counts_its_items(specs):
    body = {"region": "us-west-2", "availabilityZones": [{}, {}, {}]}

    assert first(specs, "cluster_get_availability_zones", body, {"region": "us-west-2"}) == (
        "cluster_get_availability_zones: 3 availabilityZones."
    )


def test_the_teams_view_leads_with_why_a_teams_use_is_unknown_instead_of_none(specs):
    why = "the cluster's RBAC refuses the control plane's view role Kueue's clusterqueues (403)"
    body = {
        "clusterTag": "demo",
        "capacity": {},
        "allocated": {},
        "teams": [{"team": "ml-a", "inUse": [], "admittedWorkloads": None, "queued": [], "queueUnknown": why}],
    }

    assert first(specs, "hyperpod_list_teams", body) == (
        f"Cluster demo: 1 teams; ml-a's use and queued jobs unknown: {why}."
    )


def test_the_teams_view_leads_with_each_teams_use_and_why_its_first_queued_job_waits(specs):
    waiting = "couldn't assign flavors to pod set pods: insufficient unused quota for nvidia.com/gpu in flavor x"
    body = {
        "clusterTag": "demo",
        "capacity": {"ml.g5.xlarge": 2},
        "allocated": {"ml.g5.xlarge": 2},
        "teams": [
            {
                "team": "ml-a",
                "inUse": [{"instanceType": "ml.g5.xlarge", "resource": "nvidia.com/gpu", "inUse": "1"}],
                "queued": [{"name": "second", "reason": "Pending", "message": waiting}],
            },
            {"team": "ml-b", "inUse": [], "queued": []},
        ],
    }

    assert first(specs, "hyperpod_list_teams", body) == (
        f"Cluster demo: 2 teams; ml-a uses 1 nvidia.com/gpu, 1 queued (second: {waiting}); ml-b uses no GPU, 0 queued."
    )


def test_a_queued_job_leads_with_why_it_waits(specs):
    body = {"name": "llama", "phase": "Queued", "waitingReason": "Pending: couldn't assign flavors"}

    assert first(specs, "job_get_status", body, {"clusterTag": "demo", "jobName": "llama"}) == (
        "job_get_status: llama is Queued: Pending: couldn't assign flavors"
    )
