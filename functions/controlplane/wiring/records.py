"""The control plane's own records: operations (and the workflows they start), the cluster registry and the
audit log."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.adapters.aws.dynamo.audit import DynamoAuditLog
    from controlplane.adapters.aws.dynamo.registry import DynamoClusterRegistry
    from controlplane.core.operations.audit import AuditTrail
    from controlplane.core.operations.service import OperationService


@provider
def operations() -> OperationService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.adapters.aws.dynamo.operations import DynamoOperationRepository
    from controlplane.adapters.aws.stepfunctions import StepFunctionsLauncher
    from controlplane.core.operations.service import OperationService
    from controlplane.observability import PowertoolsOperationMetrics

    config = settings()
    return OperationService(
        operations=DynamoOperationRepository(table=config.operations_table),
        registry=wiring.registry(),
        launcher=StepFunctionsLauncher(state_machine_arns=config.state_machine_arns),
        account=AwsAccountGateway(),
        clock=wiring.clock(),
        audit=wiring.audit_log(),
        finished=lambda operation: wiring.clusters().record_outcome(operation),
        wait_poll_seconds=config.operation_wait_poll_seconds,
        metrics=PowertoolsOperationMetrics(),
    )


@provider
def registry() -> DynamoClusterRegistry:
    from controlplane.adapters.aws.dynamo.registry import DynamoClusterRegistry

    return DynamoClusterRegistry(table=settings().clusters_table)


@provider
def audit_log() -> DynamoAuditLog:
    from controlplane.adapters.aws.dynamo.audit import DynamoAuditLog

    return DynamoAuditLog(table=settings().audit_table)


@provider
def audit_trail() -> AuditTrail:
    from controlplane.core.operations.audit import AuditTrail

    return AuditTrail(log=wiring.audit_log())
