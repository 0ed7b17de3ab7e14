"""HyperPod's events: recorded, the workflows' waits they end, the remediation they trigger (and its policy, which
the API sets), and their forwarding from the other Regions a cluster lives in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.events.forwarding import EventForwardingSteps
    from controlplane.core.events.service import EventService
    from controlplane.core.events.waits import EventWaitSteps
    from controlplane.core.remediation.policy import RemediationPolicyService
    from controlplane.core.remediation.service import RemediationService


@provider
def events() -> EventService:
    from controlplane.adapters.aws.events import DynamoEventStore, DynamoEventWaits, StepFunctionsTaskSignal
    from controlplane.core.events.service import EventService

    config = settings()
    return EventService(
        clusters=wiring.clusters(),
        registry=wiring.registry(),
        store=DynamoEventStore(table=config.events_table),
        waits=DynamoEventWaits(table=config.event_waits_table),
        signal=StepFunctionsTaskSignal(),
        remediation=wiring.remediation(),
        clock=wiring.clock(),
    )


@provider
def remediation() -> RemediationService:
    from controlplane.adapters.aws.events import DynamoEventStore
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.remediation.service import RemediationService

    return RemediationService(
        clusters=wiring.clusters(),
        store=DynamoEventStore(table=settings().events_table),
        operations=wiring.operations(),
        hyperpod=AwsHyperPodGateway,
        audit=wiring.audit_log(),
        clock=wiring.clock(),
    )


@provider
def remediation_policy() -> RemediationPolicyService:
    """The API's side of remediation: the policy, set with a plan and its confirmation where it replaces nodes."""
    from controlplane.adapters.aws.events import DynamoEventStore
    from controlplane.core.remediation.policy import RemediationPolicyService

    return RemediationPolicyService(
        clusters=wiring.clusters(),
        store=DynamoEventStore(table=settings().events_table),
        confirmations=wiring.confirmations(),
        clock=wiring.clock(),
    )


@provider
def event_wait_steps() -> EventWaitSteps:
    from controlplane.adapters.aws.events import DynamoEventWaits, StepFunctionsTaskSignal
    from controlplane.core.events.waits import EventWaitSteps

    return EventWaitSteps(waits=DynamoEventWaits(table=settings().event_waits_table), signal=StepFunctionsTaskSignal())


@provider
def event_forwarding_steps() -> EventForwardingSteps:
    from controlplane.adapters.aws.event_forwarding import AwsEventForwarding
    from controlplane.core.events.forwarding import EventForwardingSteps

    return EventForwardingSteps(
        forwarding=AwsEventForwarding,
        registry=wiring.registry(),
        deployment=wiring.deployment(),
        role_arn=settings().event_forwarding_role_arn,
    )
