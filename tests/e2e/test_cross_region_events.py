"""HyperPod's events from a Region other than the deployment's: HyperPod sends them to the default bus of the
cluster's Region, where the stack has no rule, so stage 1 makes that Region forward them to the home bus, and the
deletion of the Region's last cluster removes the forwarding rule (its own sandbox: HyperPod takes a second per
transition here, so a wait is parked before its event)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from controlplane import wiring
from controlplane.adapters.aws.eventbridge import FORWARDED_PATTERN
from controlplane.core.naming import MANAGED_BY_KEY
from sandbox.runtime import ACCOUNT_ID, HOME_REGION
from tests.conftest import SANDBOX_TIMINGS, RunningSandbox, aws_client, raise_network_quotas, serve_sandbox
from tests.e2e.test_events import decisions, fail_node
from tests.workflows.confirm import confirmed

REGION = "us-west-2"
TAG = "xregion"
RULE = f"instantstart-hyperpod-events-to-{HOME_REGION}"
HOME_BUS = f"arn:aws:events:{HOME_REGION}:{ACCOUNT_ID}:event-bus/default"


def forwarding_rules() -> list[str]:
    return [rule["Name"] for rule in aws_client("events", region_name=REGION).list_rules()["Rules"]]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    assert REGION != HOME_REGION
    with serve_sandbox(**{**SANDBOX_TIMINGS, "seconds_to_active": 1.0}) as running_sandbox:
        raise_network_quotas(running_sandbox.sandbox)
        running_sandbox.build_cluster(TAG, instances=2)
        yield running_sandbox


def test_stage_one_outside_the_home_region_makes_that_region_forward_hyperpod_events_home(sandbox):
    events = aws_client("events", region_name=REGION)
    rule = events.describe_rule(Name=RULE)
    (target,) = events.list_targets_by_rule(Rule=RULE)["Targets"]
    tags = {tag["Key"]: tag["Value"] for tag in events.list_tags_for_resource(ResourceARN=rule["Arn"])["Tags"]}
    assert (rule["State"], target["Arn"], tags[MANAGED_BY_KEY]) == ("ENABLED", HOME_BUS, "instantstart")
    assert target["RoleArn"] == os.environ["IS_EVENT_FORWARDING_ROLE_ARN"]
    assert json.loads(rule["EventPattern"]) == FORWARDED_PATTERN
    assert forwarding_rules() == [RULE]
    assert aws_client("events", region_name=HOME_REGION).list_rules()["Rules"] == []


def test_a_node_event_from_the_cluster_s_region_reaches_the_remediation_policy(sandbox):
    with sandbox.client() as api:
        node_id = api.get(f"/clusters/{TAG}/nodes").json()["nodes"][0]["nodeId"]
        fail_node(sandbox, TAG, node_id)
        (decision,) = decisions(api, TAG, node_id, limit_seconds=15)
    assert decision["outcome"] == "notified"


def test_a_reboot_in_the_cluster_s_region_is_woken_by_its_event_with_the_fallback_poll_an_hour_away(sandbox):
    with sandbox.client() as api:
        node_id = api.get(f"/clusters/{TAG}/nodes").json()["nodes"][1]["nodeId"]
        polls = {name: os.environ[name] for name in ("IS_POLL_SECONDS", "IS_POLL_MAX_SECONDS")}
        os.environ.update(dict.fromkeys(polls, "3600"))  # polling effectively disabled
        wiring.reset()
        try:
            accepted = confirmed(api, "POST", f"/clusters/{TAG}/nodes/{node_id}/reboot").json()
            operation = sandbox.wait_terminal(accepted["operationId"], limit_seconds=30)
        finally:
            os.environ.update(polls)
            wiring.reset()
    assert operation["status"] == "SUCCEEDED", operation
    woken = [event for event, result in sandbox.sandbox.events.delivered if result.get("woken")]
    assert {event["region"] for event in woken} == {REGION}


def test_deleting_the_region_s_last_cluster_removes_its_forwarding_rule(sandbox):
    with sandbox.client() as api:
        accepted = confirmed(api, "DELETE", f"/clusters/{TAG}").json()
    operation = sandbox.wait_terminal(accepted["operationId"], limit_seconds=120)
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    assert forwarding_rules() == []
    # Nothing reaches the handlers from that Region any more.
    stray = {
        "id": "stray",
        "source": "aws.sagemaker",
        "detail-type": "SageMaker HyperPod Cluster State Change",
        "time": "2026-12-04T00:00:00Z",
        "region": REGION,
        "detail": {"ClusterName": f"hp-cluster-{TAG}", "ClusterStatus": "InService"},
    }
    assert sandbox.sandbox.events.send(stray) is None
