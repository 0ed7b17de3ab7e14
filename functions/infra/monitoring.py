"""CloudWatch alarms and dashboard over the control plane's metrics (`controlplane.observability` names them).

Context key (optional):
  alarmTopicArn   an SNS topic the alarms notify (on ALARM and back to OK). Without it the alarms are created with
                  no actions: they change state on the dashboard and in the console, and notify no one.
"""

from __future__ import annotations

import re

from aws_cdk import CfnOutput, Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from constructs import Construct

from controlplane.models.operations import TERMINAL_STATUSES
from controlplane.observability import NAMESPACE, OPERATIONS_ENDED, SERVICE, STAGE_SECONDS, UNHEALTHY_NODES

ALARM_TOPIC_CONTEXT = "alarmTopicArn"
TOPIC_ARN = re.compile(r"arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?")
PERIOD = Duration.minutes(5)
OUTCOMES = tuple(status.value for status in TERMINAL_STATUSES)


def alarm_topic_arn(scope: Construct) -> str | None:
    """Context `alarmTopicArn`, checked."""
    value = scope.node.try_get_context(ALARM_TOPIC_CONTEXT)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not TOPIC_ARN.fullmatch(value):
        raise ValueError(f"{ALARM_TOPIC_CONTEXT}: {value!r} is not an SNS topic ARN.")
    return value


def _metric(name: str, statistic: str, label: str | None = None, **dimensions: str) -> cloudwatch.Metric:
    """A metric of ours; an alarm's has no label (CloudFormation would get it as a metric-math alarm)."""
    return cloudwatch.Metric(
        namespace=NAMESPACE,
        metric_name=name,
        dimensions_map={"service": SERVICE, **dimensions},
        statistic=statistic,
        period=PERIOD,
        label=label,
    )


class Monitoring(Construct):
    """The alarms (failed operations, unhealthy nodes) with the topic's actions, and the dashboard."""

    def __init__(self, scope: Construct, construct_id: str, *, api_function: lambda_.IFunction) -> None:
        super().__init__(scope, construct_id)
        topic_arn = alarm_topic_arn(self)
        failed = _metric(OPERATIONS_ENDED, "Sum", Outcome="FAILED")
        unhealthy = _metric(UNHEALTHY_NODES, "Maximum")
        self.failed_operations = cloudwatch.Alarm(
            self,
            "FailedOperationsAlarm",
            alarm_description="An InstantStart operation failed: GET /operations?clusterTag= names it, and its "
            "error names the step; fix the cause and POST /operations/{id}/resume.",
            metric=failed,
            threshold=1,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        self.unhealthy_nodes = cloudwatch.Alarm(
            self,
            "UnhealthyNodesAlarm",
            alarm_description="A HyperPod cluster has nodes not Ready or not Schedulable: GET "
            "/clusters/{clusterTag}/overview shows which; the troubleshoot-node skill says what to do.",
            metric=unhealthy,
            threshold=1,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        if topic_arn:
            topic = actions.SnsAction(sns.Topic.from_topic_arn(self, "AlarmTopic", topic_arn))
            for alarm in (self.failed_operations, self.unhealthy_nodes):
                alarm.add_alarm_action(topic)
                alarm.add_ok_action(topic)
        self.dashboard = self._dashboard(api_function)
        CfnOutput(Stack.of(self), "DashboardName", value=self.dashboard.dashboard_name)

    def _dashboard(self, api_function: lambda_.IFunction) -> cloudwatch.Dashboard:
        dashboard = cloudwatch.Dashboard(self, "Dashboard", default_interval=Duration.days(1))
        stage_seconds = cloudwatch.MathExpression(
            expression=f"SEARCH('{{{NAMESPACE},Kind,Stage,service}} MetricName=\"{STAGE_SECONDS}\"', 'Average', 300)",
            label="",
            using_metrics={},
            period=PERIOD,
        )
        dashboard.add_widgets(
            cloudwatch.AlarmStatusWidget(
                title="Alarms", alarms=[self.failed_operations, self.unhealthy_nodes], width=24, height=3
            ),
        )
        dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Operations ended, by outcome",
                left=[_metric(OPERATIONS_ENDED, "Sum", outcome.lower(), Outcome=outcome) for outcome in OUTCOMES],
                width=12,
            ),
            cloudwatch.GraphWidget(
                title="Unhealthy nodes (worst cluster)",
                left=[_metric(UNHEALTHY_NODES, "Maximum", "unhealthy nodes")],
                width=12,
            ),
        )
        dashboard.add_widgets(
            cloudwatch.GraphWidget(title="Stage seconds, by kind and stage", left=[stage_seconds], width=12),
            cloudwatch.GraphWidget(
                title="REST API function",
                left=[api_function.metric_invocations(period=PERIOD), api_function.metric_errors(period=PERIOD)],
                right=[api_function.metric_duration(period=PERIOD, statistic="p90")],
                width=12,
            ),
        )
        return dashboard
