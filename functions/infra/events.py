"""HyperPod events in: one EventBridge rule per pattern of `controlplane.adapters.aws.eventbridge.PATTERNS` on the
default bus, each targeting the events function (`events.hyperpod`), with retries and an SQS dead-letter queue.

The patterns are the runtime's own (the sandbox's router matches the same ones), so infra holds no copy of them.
Other Regions' HyperPod events reach these rules through a rule in each of those Regions that the steps create
(`controlplane.core.events.forwarding`), whose target is this Region's default bus, reached as the forwarding role
made here: EventBridge may assume it only for this account's forwarding rules, and it may only put events on that bus.
EKS emits no state-change events of its own (its changes reach EventBridge only as CloudTrail API calls, which say
that a call was made, not that a cluster or add-on became ACTIVE), so EKS waits keep their bounded poll and no EKS
rule is made. The function's role is `infra.access.events.EVENTS_ACCESS`; alarms on the queue are not made here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import Aws, Duration, Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from controlplane.adapters.aws.eventbridge import PATTERNS
from controlplane.core.naming import Deployment, event_forwarding_rule_name, state_machine_name
from controlplane.models.operations import OperationKind
from controlplane.settings import Settings
from infra.access.events import EVENT_FORWARDING_GRANTS, EVENTS_ACCESS
from infra.grants import add_grants, add_table_grants
from infra.lambdas import control_plane_code, lambda_function, lambda_role
from infra.nag import Acknowledgements
from infra.names import deployment_name, event_forwarding_role_name

EVENTS_HANDLER = "events.hyperpod.lambda_handler"
EVENTS_TIMEOUT = Duration.seconds(60)
RETRY_ATTEMPTS = 8
"""EventBridge's retries of a failed delivery (with back-off) before the event goes to the dead-letter queue."""
MAX_EVENT_AGE = Duration.hours(2)
"""An event older than this is not retried: by then the waits' fallback poll has noticed the change."""
DEAD_LETTER_RETENTION = Duration.days(14)


class HyperPodEvents(Construct):
    """The rules, the events function and its role, and the dead-letter queue of the rules' target."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        tables: Mapping[str, dynamodb.Table],
        layer: lambda_.ILayerVersion,
        state_machines: Mapping[OperationKind, sfn.StateMachine],
        kubernetes_view_role_arn: str,
        acks: Acknowledgements,
    ) -> None:
        super().__init__(scope, construct_id)
        self.function = self._function(tables, layer, state_machines, kubernetes_view_role_arn, acks)
        self.dead_letters = sqs.Queue(
            self,
            "DeadLetters",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=DEAD_LETTER_RETENTION,
        )
        acks.add(
            self.dead_letters,
            "AwsSolutions-SQS3",
            "This queue is itself the dead-letter queue of the HyperPod event rules' Lambda target",
        )
        target = targets.LambdaFunction(
            self.function,
            dead_letter_queue=self.dead_letters,
            retry_attempts=RETRY_ATTEMPTS,
            max_event_age=MAX_EVENT_AGE,
        )
        self.rules = {
            kind: events.Rule(
                self,
                f"{kind}Rule",
                description=f"HyperPod {kind} events to the InstantStart events function",
                event_pattern=event_pattern(pattern),
                targets=[target],
            )
            for kind, pattern in PATTERNS.items()
        }

    def _function(
        self,
        tables: Mapping[str, dynamodb.Table],
        layer: lambda_.ILayerVersion,
        state_machines: Mapping[OperationKind, sfn.StateMachine],
        kubernetes_view_role_arn: str,
        acks: Acknowledgements,
    ) -> lambda_.Function:
        role = lambda_role(self, "Role", "HyperPod events")
        values = {
            "state_machine_arn": [machine.state_machine_arn for machine in state_machines.values()],
            "state_machine_name": [state_machine_name(deployment_name(self), kind) for kind in OperationKind],
        }
        add_grants(role, EVENTS_ACCESS.grants, values, acks)
        add_table_grants(role, EVENTS_ACCESS, tables)
        return lambda_function(
            self,
            "Events",
            handler=EVENTS_HANDLER,
            role=role,
            timeout=EVENTS_TIMEOUT,
            description="InstantStart HyperPod events: recorded, waits woken, remediation",
            environment=Settings.environment(
                # The services this function builds name every table, even of tables it never touches.
                **{setting: table.table_name for setting, table in tables.items()},
                state_machine_arns=state_machine_arns(self, state_machines),
                # The cluster service is built with the view role's ARN; the event path reads no Kubernetes, and
                # this role may not assume it.
                kubernetes_view_role_arn=kubernetes_view_role_arn,
            ),
            code=control_plane_code(self),
            layer=layer,
            acks=acks,
        )


def event_forwarding_role(scope: Construct, acks: Acknowledgements) -> iam.Role:
    """The role other Regions' forwarding rules deliver HyperPod's events here as (the steps pass it to EventBridge)."""
    home = Deployment(deployment_name(scope), Aws.REGION, Aws.PARTITION)
    rules = f"arn:{Aws.PARTITION}:events:*:{Aws.ACCOUNT_ID}:rule/{event_forwarding_rule_name(home)}"
    role = iam.Role(
        scope,
        "EventForwardingRole",
        role_name=event_forwarding_role_name(home.name),
        assumed_by=iam.ServicePrincipal(
            "events.amazonaws.com",
            conditions={"StringEquals": {"aws:SourceAccount": Aws.ACCOUNT_ID}, "ArnLike": {"aws:SourceArn": rules}},
        ),
        description="InstantStart: EventBridge puts other Regions' HyperPod events on this Region's default bus",
    )
    add_grants(role, EVENT_FORWARDING_GRANTS, {}, acks)
    return role


def event_pattern(pattern: Mapping[str, Any]) -> events.EventPattern:
    """The CDK form of one of `PATTERNS` (its keys in snake case: `detail-type` is `detail_type`)."""
    return events.EventPattern(**{key.replace("-", "_"): value for key, value in pattern.items()})


def state_machine_arns(scope: Construct, state_machines: Mapping[OperationKind, sfn.StateMachine]) -> str:
    """The `state_machine_arns` setting: each workflow's state machine by operation kind."""
    arns = {kind.value: machine.state_machine_arn for kind, machine in state_machines.items()}
    return Stack.of(scope).to_json_string(arns)
