"""HyperPod events in the stack: one rule per runtime pattern on the default bus, each delivering to the events
function with retries and a dead-letter queue; the function's role reaches only what recording, waking and
remediation need; the await step may end its own wait."""

from __future__ import annotations

import json
from typing import Any

from controlplane.adapters.aws.eventbridge import PATTERNS
from infra.events import EVENTS_HANDLER, MAX_EVENT_AGE, RETRY_ATTEMPTS
from tests.infra.test_infra_downloads import actions


def events_role(synth: Any) -> str:
    return synth.role_of(synth.functions_by_handler()[EVENTS_HANDLER])


def test_each_pattern_is_one_rule_on_the_default_bus_delivering_to_the_events_function(synth: Any) -> None:
    rules = synth.of_type("AWS::Events::Rule").values()
    function = synth.functions_by_handler()[EVENTS_HANDLER]
    by_pattern = [rule["Properties"] for rule in rules if {"Fn::GetAtt": [function, "Arn"]} in _arns(rule)]
    assert sorted(json.dumps(p["EventPattern"], sort_keys=True) for p in by_pattern) == sorted(
        json.dumps(pattern, sort_keys=True) for pattern in PATTERNS.values()
    )
    for rule in by_pattern:
        assert "EventBusName" not in rule  # the default bus
        (target,) = rule["Targets"]
        assert target["RetryPolicy"] == {
            "MaximumEventAgeInSeconds": MAX_EVENT_AGE.to_seconds(),
            "MaximumRetryAttempts": RETRY_ATTEMPTS,
        }
        queue = target["DeadLetterConfig"]["Arn"]["Fn::GetAtt"][0]
        assert synth.resources[queue]["Type"] == "AWS::SQS::Queue"


def test_the_events_role_reads_nodes_starts_and_wakes_this_deployments_workflows_only(synth: Any) -> None:
    statements = synth.statements(events_role(synth))
    granted = {a for a in actions(statements) if not a.startswith(("logs:", "xray:", "dynamodb:"))}
    assert granted == {"sagemaker:DescribeClusterNode", "states:StartExecution", "states:SendTaskSuccess"}
    machines = set(synth.of_type("AWS::StepFunctions::StateMachine"))
    (start,) = [s for s in statements if s["Action"] == "states:StartExecution"]
    assert {ref["Ref"] for ref in _list(start["Resource"])} <= machines
    # SendTaskSuccess has no resource-level permissions (the task token names the execution): IAM matches it on "*".
    (wake,) = [s for s in statements if "states:SendTaskSuccess" in _list(s["Action"])]
    assert wake["Resource"] == "*"


def test_the_events_role_reaches_the_tables_of_events_waits_clusters_operations_and_audit(synth: Any) -> None:
    tables = {}
    function = synth.resources[synth.functions_by_handler()[EVENTS_HANDLER]]
    for name, ref in function["Properties"]["Environment"]["Variables"].items():
        if name.endswith("_TABLE"):
            tables[ref["Ref"]] = name
    dynamodb = [s for s in synth.statements(events_role(synth)) if "dynamodb:" in json.dumps(s["Action"])]
    reached = {name for key, name in tables.items() if key in json.dumps(dynamodb)}
    assert reached == {
        "IS_EVENTS_TABLE",
        "IS_EVENT_WAITS_TABLE",
        "IS_CLUSTERS_TABLE",
        "IS_OPERATIONS_TABLE",
        "IS_AUDIT_TABLE",
    }


def test_the_await_step_may_end_its_own_wait(synth: Any) -> None:
    statements = synth.statements(synth.role_of(synth.step_function("event_waits")))
    assert "states:SendTaskSuccess" in actions(statements)


def _arns(rule: dict[str, Any]) -> list[Any]:
    return [target["Arn"] for target in rule["Properties"].get("Targets", [])]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
