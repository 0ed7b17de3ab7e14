"""The shape every Lambda function of the stack shares: runtime, architecture, memory, active tracing, its own
log group, the Powertools service name; and the control plane's code asset (functions/ minus infra/ and sandbox/)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.grants import add_grants
from infra.layer import ARCHITECTURE, RUNTIME
from infra.nag import Acknowledgements
from infra.permissions import Grant

FUNCTIONS_DIR = Path(__file__).resolve().parents[1]
# The control plane's Lambda asset: functions/ minus what never runs in Lambda.
ASSET_EXCLUDES = ["infra", "sandbox", "**/__pycache__", "**/*.pyc", "**/.mypy_cache", "**/.pytest_cache"]
SERVICE_NAME = "instantstart"
MEMORY_MB = 512
LOG_RETENTION = logs.RetentionDays.THREE_MONTHS

XRAY_GRANT = Grant(
    ("xray:PutTraceSegments", "xray:PutTelemetryRecords"),
    ("*",),
    reason="Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords have no resource-level permissions",
)
PYTHON_PIN_REASON = (
    "Pinned to python3.12: the dependency layer is built from cp312 wheels (pydantic-core) and the code "
    "is tested on it; moving to a newer runtime means rebuilding the layer and rerunning the suite"
)


def control_plane_code() -> lambda_.Code:
    """A code asset is bound to one stack: each stack asks for its own (same content, so one upload)."""
    return lambda_.Code.from_asset(str(FUNCTIONS_DIR), exclude=ASSET_EXCLUDES)


def lambda_function(
    scope: Construct,
    construct_id: str,
    *,
    handler: str,
    role: iam.Role,
    timeout: Duration,
    description: str,
    environment: Mapping[str, str],
    code: lambda_.Code,
    layer: lambda_.ILayerVersion,
    acks: Acknowledgements,
) -> lambda_.Function:
    log_group = logs.LogGroup(
        scope, f"{construct_id}Logs", retention=LOG_RETENTION, removal_policy=RemovalPolicy.DESTROY
    )
    log_group.grant_write(role)
    # Tracing's X-Ray actions have no resource-level permissions: granted here, into the role's unscoped policy,
    # rather than by CDK into its default policy (which must never hold a statement on "*").
    add_grants(role, (XRAY_GRANT,), {}, acks)
    function = lambda_.Function(
        scope,
        f"{construct_id}Function",
        description=description,
        runtime=RUNTIME,
        architecture=ARCHITECTURE,
        handler=handler,
        code=code,
        layers=[layer],
        role=role.without_policy_updates(),
        memory_size=MEMORY_MB,
        timeout=timeout,
        tracing=lambda_.Tracing.ACTIVE,
        log_group=log_group,
        environment={"POWERTOOLS_SERVICE_NAME": SERVICE_NAME, **environment},
    )
    acks.add(function, "AwsSolutions-L1", PYTHON_PIN_REASON)
    return function


def lambda_role(scope: Construct, construct_id: str, purpose: str) -> iam.Role:
    return iam.Role(
        scope,
        construct_id,
        assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
        description=f"InstantStart {purpose} function",
    )
