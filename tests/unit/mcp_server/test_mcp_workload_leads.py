"""Leads an agent can act on (issue 30). Workloads are waitable like operations (finding 1): a job, a model server and
an endpoint each have a long-poll tool with operation_wait's contract, and every tool that creates or scales one names
that wait in its result's lead, never "nothing to wait on" while the work runs. A plan whose checks fail says first
that the call would be refused, and offers nothing to carry out (finding 2)."""

from __future__ import annotations

import pytest

from api.app import openapi_document
from mcp_server.leads import lead, workload_lead
from mcp_server.tools import MAX_WAIT_SECONDS, tools_from_openapi

SPECS = {spec.name: spec for spec in tools_from_openapi(openapi_document())}
WAITS = {"job_wait": "jobName", "inference_wait_deployment": "name", "inference_endpoint_wait": "name"}
CREATORS = {
    "job_submit": "job_wait",
    "job_submit_from_recipe": "job_wait",
    "inference_deploy_container": "inference_wait_deployment",
    "inference_update_deployment": "inference_wait_deployment",
    "inference_endpoint_create": "inference_endpoint_wait",
}


@pytest.mark.parametrize("name", WAITS)
def test_each_workload_wait_repeats_the_apis_long_poll_up_to_the_tool_cap_until_done(name):
    spec = SPECS[name]
    timeout = spec.input_schema["properties"]["timeoutSeconds"]
    assert (timeout["maximum"], timeout["default"]) == (MAX_WAIT_SECONDS, MAX_WAIT_SECONDS)
    assert spec.round_seconds == 25 and spec.read_only
    assert spec.path_params == ("clusterTag", WAITS[name])
    assert spec.done({"done": True}) and not spec.done({"done": False})


@pytest.mark.parametrize(("creator", "wait"), CREATORS.items())
def test_every_tool_that_starts_a_workload_names_its_wait(creator, wait):
    assert (SPECS[creator].wait_tool, SPECS[creator].wait_arguments) == (wait, SPECS[wait].path_params)


@pytest.mark.parametrize(
    ("creator", "arguments", "body", "call"),
    [
        (
            "job_submit_from_recipe",
            {"clusterTag": "demo", "recipe": "llama-factory", "name": "lf"},
            {
                "recipe": "llama-factory",
                "dryRun": False,
                "job": {"name": "lf"},
                "detail": {"name": "lf", "phase": "Pending"},
            },
            "job_wait with clusterTag=demo, jobName=lf",
        ),
        (
            "job_submit",
            {"clusterTag": "demo", "name": "sft"},
            {"name": "sft", "phase": "Pending", "kind": "HyperPodPyTorchJob"},
            "job_wait with clusterTag=demo, jobName=sft",
        ),
        (
            "inference_deploy_container",
            {"clusterTag": "demo", "name": "qwen"},
            {"name": "qwen", "status": "Loading"},
            "inference_wait_deployment with clusterTag=demo, name=qwen",
        ),
        (
            "inference_endpoint_create",
            {"clusterTag": "demo", "name": "qwen"},
            {"name": "qwen", "state": "DeploymentPending"},
            "inference_endpoint_wait with clusterTag=demo, name=qwen",
        ),
    ],
)
def test_a_created_workload_still_on_its_way_is_followed_by_its_wait_not_nothing_to_wait_on(
    creator, arguments, body, call
):
    sentence = lead(SPECS[creator], arguments, body)
    assert "nothing to wait on" not in sentence
    assert f"call {call}" in sentence, sentence


def test_a_wait_that_ran_out_says_where_the_workload_stands_and_to_call_again():
    body = {"done": False, "waitedSeconds": 25, "job": {"name": "lf", "phase": "Running"}}
    sentence = workload_lead(SPECS["job_wait"], {"clusterTag": "demo", "jobName": "lf"}, body, still_waiting_after=240)
    assert sentence == "The job lf is still Running after 240 s — call job_wait again with clusterTag=demo, jobName=lf."


@pytest.mark.parametrize(
    ("tool", "body", "next_tool"),
    [
        ("job_wait", {"done": True, "job": {"name": "lf", "phase": "Succeeded"}}, "job_get_logs"),
        ("job_wait", {"done": True, "job": {"name": "lf", "phase": "Failed"}}, "job_get_status"),
        (
            "inference_wait_deployment",
            {"done": True, "deployment": {"name": "q", "status": "Ready"}},
            "inference_call_model",
        ),
        (
            "inference_endpoint_wait",
            {"done": True, "endpoint": {"name": "q", "state": "DeploymentComplete"}},
            "inference_endpoint_call",
        ),
    ],
)
def test_a_finished_wait_names_the_next_tool(tool, body, next_tool):
    sentence = lead(SPECS[tool], {"clusterTag": "demo"}, body)
    assert next_tool in sentence and "nothing changed" not in sentence, sentence


FAILING_QUOTA = {
    "check": "quota: ml.g6.4xlarge for cluster usage",
    "status": "fail",
    "have": 2,
    "need": 500,
    "fix": "Request an increase of L-1234 with RequestServiceQuotaIncrease.",
}


@pytest.mark.parametrize(
    ("tool", "arguments", "body"),
    [
        ("cluster_create", {"dryRun": True}, {"dryRun": True, "actions": [], "checks": [FAILING_QUOTA]}),
        (
            "hyperpod_add_instance_group",
            {"dryRun": True},
            {"dryRun": True, "actions": [], "checks": [{"check": "ok", "status": "pass"}, FAILING_QUOTA]},
        ),
    ],
)
def test_a_plan_with_a_failing_check_says_it_would_be_refused_first_and_offers_no_carrying_out(tool, arguments, body):
    """Issue 30, finding 2: a 500-node group whose pre-flight said fail answered "to carry it out, call again"."""
    sentence = lead(SPECS[tool], {"clusterTag": "demo", **arguments}, body)
    assert sentence.startswith("Plan only; nothing changed, and carried out it would be refused"), sentence
    assert "quota: ml.g6.4xlarge for cluster usage" in sentence and "RequestServiceQuotaIncrease" in sentence
    assert "carry it out" not in sentence and "dryRun false" not in sentence


def test_a_plan_whose_checks_pass_or_warn_still_offers_carrying_it_out():
    body = {
        "dryRun": True,
        "actions": [],
        "checks": [{"check": "ok", "status": "pass"}, {"check": "w", "status": "warn"}],
    }
    sentence = lead(SPECS["cluster_create"], {"dryRun": True}, body)
    assert sentence == "Plan only; nothing changed. To carry it out, call cluster_create again with dryRun false."


def test_a_reboot_that_did_not_recover_the_node_says_to_replace_it_not_to_resume():
    """Issue 30, finding 4: a reboot reported success while the node stayed UnschedulablePendingReplacement."""
    message = (
        "Step 'Check Nodes Rebooted' failed: Rebooted, but not recovered: i-0abc is Running but its health is "
        "UnschedulablePendingReplacement (…). Replace it with hyperpod_node_replace (nodeId i-0abc): plan first, then "
        "confirm with the person. Resuming this reboot would only reboot it again."
    )
    operation = {
        "operationId": "op-1",
        "status": "FAILED",
        "stages": [{"name": "nodes", "status": "FAILED"}],
        "error": {"code": "NodeNotRecoveredError", "message": message, "step": "Check Nodes Rebooted"},
    }
    sentence = lead(SPECS["operation_wait"], {"operationId": "op-1"}, operation)
    assert sentence.startswith("Operation op-1 FAILED at step Check Nodes Rebooted: Step 'Check Nodes Rebooted' failed")
    assert "UnschedulablePendingReplacement" in sentence and "hyperpod_node_replace" in sentence
    assert "operation_resume" not in sentence


def test_a_read_that_carries_a_note_leads_with_it():
    note = "The job Succeeded, and its pods were deleted when it ended (cleanPodPolicy All), their logs with them."
    body = {"jobName": "lf", "pod": "", "pods": [], "lines": [], "note": note}
    assert (
        lead(SPECS["job_get_logs"], {"clusterTag": "demo", "jobName": "lf"}, body) == f"job_get_logs answered: {note}"
    )


def test_a_queued_job_still_waited_for_says_why_kueue_holds_it():
    body = {"done": False, "job": {"name": "lf", "phase": "Queued", "waitingReason": "Pending: insufficient quota"}}
    sentence = workload_lead(SPECS["job_wait"], {"clusterTag": "demo", "jobName": "lf"}, body, still_waiting_after=240)
    assert sentence == (
        "The job lf is still Queued after 240 s (Pending: insufficient quota) — call job_wait again with "
        "clusterTag=demo, jobName=lf."
    )
