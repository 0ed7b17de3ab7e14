"""Monitoring in the stack: the failed-operations and unhealthy-nodes alarms on the metrics the runtime emits, no
alarm actions without an `alarmTopicArn`, the topic on ALARM and OK with one, and the dashboard."""

from __future__ import annotations

from typing import Any

import pytest

from controlplane.observability import NAMESPACE, OPERATIONS_ENDED, SERVICE, UNHEALTHY_NODES
from infra.monitoring import ALARM_TOPIC_CONTEXT, Monitoring, alarm_topic_arn

TOPIC = "arn:aws:sns:us-west-2:123456789012:instantstart-alarms"


def alarms_by_metric(resources: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        props["Properties"]["MetricName"]: props["Properties"]
        for props in resources.values()
        if props["Type"] == "AWS::CloudWatch::Alarm" and props["Properties"].get("Namespace") == NAMESPACE
    }


def dimensions(alarm: dict[str, Any]) -> dict[str, str]:
    return {entry["Name"]: entry["Value"] for entry in alarm["Dimensions"]}


def test_the_alarms_read_the_metrics_the_runtime_emits_and_notify_no_one_without_a_topic(synth: Any) -> None:
    alarms = alarms_by_metric(synth.resources)

    failed, unhealthy = alarms[OPERATIONS_ENDED], alarms[UNHEALTHY_NODES]
    assert failed["Namespace"] == unhealthy["Namespace"] == NAMESPACE
    assert dimensions(failed) == {"service": SERVICE, "Outcome": "FAILED"}
    assert (failed["Statistic"], failed["Threshold"]) == ("Sum", 1)
    assert dimensions(unhealthy) == {"service": SERVICE}
    assert (unhealthy["Statistic"], unhealthy["Threshold"]) == ("Maximum", 1)
    assert all("AlarmActions" not in alarm and "OKActions" not in alarm for alarm in alarms.values())


def test_a_dashboard_shows_the_alarms_and_the_operations(synth: Any) -> None:
    (dashboard,) = synth.of_type("AWS::CloudWatch::Dashboard").values()
    body = str(dashboard["Properties"]["DashboardBody"])

    for needed in (OPERATIONS_ENDED, UNHEALTHY_NODES, "StageSeconds", '"type":"alarm"'):
        assert needed in body
    assert "DashboardName" in synth.template["Outputs"]


def test_with_a_topic_both_alarms_notify_it_on_alarm_and_on_ok() -> None:
    from aws_cdk import App, Stack
    from aws_cdk import aws_lambda as lambda_
    from aws_cdk.assertions import Template

    app = App(context={ALARM_TOPIC_CONTEXT: TOPIC})
    stack = Stack(app, "Alarms")
    function = lambda_.Function(
        stack, "Api", runtime=lambda_.Runtime.PYTHON_3_12, handler="x.y", code=lambda_.Code.from_inline("x")
    )
    Monitoring(stack, "Monitoring", api_function=function)

    alarms = alarms_by_metric(Template.from_stack(stack).to_json()["Resources"])
    assert len(alarms) == 2
    for alarm in alarms.values():
        assert alarm["AlarmActions"] == [TOPIC] and alarm["OKActions"] == [TOPIC]


@pytest.mark.parametrize("value", ["arn:aws:sqs:us-west-2:123456789012:queue", "topic", 3])
def test_an_alarm_topic_that_is_no_sns_topic_arn_is_refused(value: object) -> None:
    from aws_cdk import App

    with pytest.raises(ValueError, match=ALARM_TOPIC_CONTEXT):
        alarm_topic_arn(App(context={ALARM_TOPIC_CONTEXT: value}))
