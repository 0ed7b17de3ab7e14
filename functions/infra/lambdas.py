"""The shape every Lambda function of the stack shares: runtime, architecture, memory, active tracing, its own
log group, the Powertools service name; and the code assets: the control plane's (functions/ minus infra/ and
sandbox/) and the MCP server's (mcp_server/ alone), each copied and compiled to bytecode for the Lambda runtime
at bundling (see `infra.layer`)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import jsii
from aws_cdk import BundlingOptions, DockerImage, Duration, IgnoreMode, ILocalBundling, RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from controlplane.access.grant import Grant
from controlplane.settings import Settings
from infra.grants import add_grants
from infra.layer import ARCHITECTURE, RUNTIME, compile_bytecode, runtime_python, skip_bundling
from infra.nag import Acknowledgements
from infra.names import deployment_name

FUNCTIONS_DIR = Path(__file__).resolve().parents[1]
ROOT_DIR = FUNCTIONS_DIR.parent
# Never shipped: what never runs in Lambda, and local caches (the bundle compiles its own bytecode).
NOT_SHIPPED = ("infra", "sandbox")
CACHES = ("__pycache__", "*.pyc", ".mypy_cache", ".pytest_cache")
# The control plane's Lambda asset: functions/ minus what never runs in Lambda.
ASSET_EXCLUDES = [*NOT_SHIPPED, *(f"**/{cache}" for cache in CACHES)]
# The MCP server's asset: the mcp_server package alone (it reaches the control plane over HTTP only).
MCP_PACKAGE = "mcp_server"
MCP_ASSET_EXCLUDES = ["/*", f"!/{MCP_PACKAGE}/", "__pycache__/", "*.pyc"]
TASK_ROOT = "/var/task"  # where Lambda unpacks a function's code
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


@jsii.implements(ILocalBundling)
class CompiledSourceBundling:
    """Local bundling: copy `source` (less `leave_out` at its top and every cache) to `<output_dir>/<into>`, then
    compile it to bytecode for the Lambda runtime."""

    def __init__(self, python: str, source: Path, *, into: str = "", leave_out: tuple[str, ...] = ()) -> None:
        self._python = python
        self._source = source
        self._into = into
        self._leave_out = set(leave_out)

    def _ignore(self, directory: str, names: list[str]) -> set[str]:
        ignored = set(shutil.ignore_patterns(*CACHES)(directory, names))
        return ignored | (self._leave_out & set(names) if Path(directory) == self._source else set())

    # jsii passes the BundlingOptions as a second positional argument.
    def try_bundle(self, output_dir: str, options: Any = None) -> bool:
        shutil.copytree(self._source, Path(output_dir) / self._into, ignore=self._ignore, dirs_exist_ok=True)
        compile_bytecode(self._python, output_dir, TASK_ROOT)
        return True


def _asset(path: Path, bundling: CompiledSourceBundling | None, **options: Any) -> lambda_.Code:
    if bundling is None:
        return lambda_.Code.from_asset(str(path), **options)
    return lambda_.Code.from_asset(
        str(path),
        bundling=BundlingOptions(image=DockerImage.from_registry("none"), local=cast(ILocalBundling, bundling)),
        **options,
    )


def control_plane_code(scope: Construct) -> lambda_.Code:
    """A code asset is bound to one stack: each stack asks for its own (same content, so one upload)."""
    bundling = (
        None
        if skip_bundling(scope)
        else CompiledSourceBundling(runtime_python(scope), FUNCTIONS_DIR, leave_out=NOT_SHIPPED)
    )
    return _asset(FUNCTIONS_DIR, bundling, exclude=ASSET_EXCLUDES)


def mcp_server_code(scope: Construct) -> lambda_.Code:
    """The remote MCP server's code asset: the mcp_server package alone."""
    bundling = (
        None
        if skip_bundling(scope)
        else CompiledSourceBundling(runtime_python(scope), ROOT_DIR / MCP_PACKAGE, into=MCP_PACKAGE)
    )
    return _asset(ROOT_DIR, bundling, exclude=MCP_ASSET_EXCLUDES, ignore_mode=IgnoreMode.GIT)


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
        environment={
            "POWERTOOLS_SERVICE_NAME": SERVICE_NAME,
            **Settings.environment(deployment_name=deployment_name(scope)),
            **environment,
        },
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
