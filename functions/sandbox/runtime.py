"""The sandbox's AWS account: moto with the project's extensions, the control plane's resources provisioned as the
CDK stack creates them (`sandbox.provisioning`), and Lambda tasks dispatched to the real step handlers.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, Protocol

import boto3
import botocore.loaders
import botocore.session
from moto import mock_aws
from moto.awslambda_simple.models import LambdaSimpleBackend

from controlplane import wiring
from controlplane.core.naming import Deployment
from controlplane.settings import Settings
from controlplane.workflows import step_key, step_keys
from sandbox.aws.amp import AmpWorkspaces
from sandbox.aws.ec2 import Ec2Extension
from sandbox.aws.eks.access import AccessEntries
from sandbox.aws.eks.addon_routes import AddonRoutes
from sandbox.aws.eks.authorization import KubernetesAuthorizer
from sandbox.aws.eks.clusters import EksClusters
from sandbox.aws.eks.health import can_run_pods
from sandbox.aws.fsx import FsxExtension
from sandbox.aws.hyperpod.extension import HyperPodExtension, MotoAccount
from sandbox.aws.hyperpod.kubernetes import HyperPodKubernetes
from sandbox.aws.hyperpod.simulation import HyperPodSimulation
from sandbox.aws.iam import IamExtension
from sandbox.aws.lambda_roles import running_step
from sandbox.aws.mlflow import MlflowExtension
from sandbox.aws.pricing import PricingExtension
from sandbox.aws.s3 import S3Extension
from sandbox.aws.sagemaker_runtime import SageMakerRuntimeExtension
from sandbox.aws.servicequotas import QuotaTable, ServiceQuotasExtension
from sandbox.aws.stepfunctions import StepFunctionsExtension
from sandbox.aws.stubber import SerializedStubber
from sandbox.aws.websocket import MANAGEMENT_URL, WebSocketConnections
from sandbox.environment import ApiEnvironment
from sandbox.events import EventRouter
from sandbox.faults import FaultBook
from sandbox.k8s.daemonsets import DaemonSetController
from sandbox.k8s.downloads import DownloaderSimulation
from sandbox.k8s.emulator import KubernetesEmulator
from sandbox.k8s.inference import InferenceOperatorSimulation
from sandbox.k8s.kuberay import KubeRaySimulation
from sandbox.k8s.kueue import KueueSimulation
from sandbox.k8s.serving import ModelServingSimulation
from sandbox.k8s.spaces import SpacesSimulation
from sandbox.k8s.training import TrainingOperatorSimulation
from sandbox.k8s.volumes import VolumeBinding
from sandbox.provisioning import provision
from steps.handler import lambda_handler as step_handler
from ws.handler import lambda_handler as ws_handler

ACCOUNT_ID = "123456789012"
HOME_REGION = "us-east-1"
FUNCTION_PREFIX = "instantstart-"
STEPS_FUNCTION = "steps"
WS_FUNCTION = "ws"
TOKENS = {"sandbox-admin": "admin", "sandbox-operator": "operator", "sandbox-viewer": "viewer"}
# The sandbox's MCP server calls the API as itself, like the MCP function's role in AWS: with a token
# only its process knows (sandbox.server), which stands for this role's SigV4 identity; the API then
# acts for the user the server names (api.auth).
MCP_ROLE_ARN = f"arn:aws:iam::{ACCOUNT_ID}:role/instantstart-sandbox-mcp"
MCP_CALLER_ARN = f"arn:aws:sts::{ACCOUNT_ID}:assumed-role/instantstart-sandbox-mcp/sandbox"


@dataclass(frozen=True)
class SandboxOptions:
    """Where the emulated Kubernetes API servers are reached, and how long the simulated account takes.

    The defaults are human scale, for `make run`; tests set every duration near zero.
    - `seconds_to_active`: how long a simulated resource takes to settle (EKS cluster and add-ons, HyperPod
      cluster and nodes, FSx file system).
    - `poll_seconds`: the workflows' wait between two checks of a resource being created (setting `poll_seconds`).
    - `operation_wait_poll_seconds`: how often `GET /operations/{id}/wait` re-reads the operation (the setting of
      that name), and a workload's long poll its workload.
    - `seconds_per_log_line`: how long a simulated training job takes per step (a log line); a job writes 30.
    - `seconds_per_download`: how long a simulated download Job takes to put its files in the bucket.
    - `seconds_to_load_model`: how long a simulated model server or managed endpoint's workers take to load the model.
    """

    kubernetes_url: str
    seconds_to_active: float = 3.0
    poll_seconds: int = 1
    operation_wait_poll_seconds: float = 0.5
    seconds_per_log_line: float = 0.5
    seconds_per_download: float = 2.0
    seconds_to_load_model: float = 5.0


# AWS's service models and endpoint table as botocore loads them: the same for every session of the process.
_SERVICE_MODELS = botocore.loaders.create_loader()


def _botocore_session() -> botocore.session.Session:
    """A session for the sandbox's account. moto starts every mock with no default boto3 session, so each sandbox
    would load every service model it uses from disk again (a fiftieth of the e2e suite's CPU); this session's
    loader is shared by the process."""
    session = botocore.session.get_session()
    session.register_component("data_loader", _SERVICE_MODELS)
    return session


class LambdaContext:
    """What a Lambda handler receives as `context`: its name and how long it has left."""

    def __init__(self, function_name: str) -> None:
        self.function_name = function_name
        self.aws_request_id = "sandbox"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000


class Extension(Protocol):
    """A patch on moto for one service (sandbox.aws): installed at start, taken off at stop."""

    def install(self) -> None: ...

    def uninstall(self) -> None: ...


class Sandbox:
    """Starts and stops the simulated account.

    The test and demo controls: `faults` (step failures), `emulator` (the clusters' Kubernetes objects), `training`
    (the training operator: kill a job's process), `kueue` (task governance's Kueue: admits queued jobs and model
    servers' pods), `kuberay` (the KubeRay controller: how long a Ray job's step takes), `downloads` (the downloader:
    fail a download), `serving` (model servers: their load time), `inference` (the inference operator: how long
    models load), `sagemaker_runtime` (the SageMaker endpoints it registered), `hyperpod` (training plans, node
    faults), `events` (EventBridge: HyperPod's events to the events handler), `quotas` (the account's Service Quotas)
    and `aws_calls` (every AWS request served); `eks`, `addons`, `hyperpod` and `fsx` say how long their resources
    take (`seconds`), which a benchmark may set apart.
    """

    def __init__(self, options: SandboxOptions) -> None:
        self.options = options
        self.faults = FaultBook()
        self.emulator = KubernetesEmulator()
        seconds = options.seconds_to_active
        self.training = TrainingOperatorSimulation(self.emulator, options.seconds_per_log_line)
        self.kueue = KueueSimulation(self.emulator)
        self.kuberay = KubeRaySimulation(self.emulator, options.seconds_per_log_line)
        self.downloads = DownloaderSimulation(self.emulator, options.seconds_per_download)
        self.serving = ModelServingSimulation(self.emulator, options.seconds_to_load_model)
        self.daemon_sets = DaemonSetController(self.emulator)
        self.spaces = SpacesSimulation(self.emulator, options.seconds_to_load_model)
        self.volumes = VolumeBinding(self.emulator)
        self.sagemaker_runtime = SageMakerRuntimeExtension()
        self.inference = InferenceOperatorSimulation(
            self.emulator, self.sagemaker_runtime, options.seconds_to_load_model
        )
        self.hyperpod = HyperPodSimulation(HyperPodKubernetes(self.emulator), MotoAccount(), seconds=seconds)
        self.events = EventRouter(self.hyperpod, ACCOUNT_ID, HOME_REGION)
        self.aws_calls = SerializedStubber.log
        self.quotas = QuotaTable()
        self.api = ApiEnvironment(SerializedStubber.table_changes)
        self.websockets = WebSocketConnections()
        self._access = AccessEntries(ACCOUNT_ID)
        self.s3 = S3Extension(ACCOUNT_ID)
        self.eks = EksClusters(
            endpoint_for=lambda name: f"{options.kubernetes_url.rstrip('/')}/{name}",
            seconds=seconds,
            on_active=self._eks_cluster_active,
            on_deleted=self._eks_cluster_deleted,
        )
        self.addons = AddonRoutes(ACCOUNT_ID, seconds, schedulable=self._eks_cluster_schedulable)
        self.fsx = FsxExtension(seconds_to_available=seconds)
        self._extensions: tuple[Extension, ...] = (
            StepFunctionsExtension(),
            IamExtension(),
            self.eks,
            self._access,
            self.addons,
            HyperPodExtension(self.hyperpod),
            Ec2Extension(self.hyperpod.addresses_in),
            self.fsx,
            AmpWorkspaces(seconds),
            self.s3,
            ServiceQuotasExtension(self.quotas),
            MlflowExtension(),
            PricingExtension(),
            self.sagemaker_runtime,
            self.api,
            self.websockets,
        )
        self._mock: Any = None
        self._original_invoke: Any = None
        self._saved_env: dict[str, str | None] = {}

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        _import_whole_packages()
        self._set_env(
            {
                "AWS_ACCESS_KEY_ID": "sandbox",
                "AWS_SECRET_ACCESS_KEY": "sandbox",
                "AWS_SESSION_TOKEN": "sandbox",
                "AWS_DEFAULT_REGION": HOME_REGION,
                "AWS_REGION": HOME_REGION,
                "POWERTOOLS_SERVICE_NAME": "instantstart",
                "POWERTOOLS_TRACE_DISABLED": "true",
                # The sandbox has no CloudWatch to read embedded metrics from stdout.
                "POWERTOOLS_METRICS_DISABLED": os.environ.get("POWERTOOLS_METRICS_DISABLED", "true"),
                "POWERTOOLS_LOG_LEVEL": os.environ.get("POWERTOOLS_LOG_LEVEL", "WARNING"),
                # moto would load its catalogue of public AMIs into each Region's EC2 backend (a few thousand
                # images parsed per Region, per start); nothing here reads an image it did not create.
                "MOTO_EC2_LOAD_DEFAULT_AMIS": "false",
            }
        )
        self._mock = mock_aws(
            config={
                "stepfunctions": {"execute_state_machine": True},
                "lambda": {"use_docker": False},
                "iam": {"load_aws_managed_policies": True},
            }
        )
        # moto's interpreter logs every failed execution at ERROR; the operation record already says why.
        logging.getLogger("moto.stepfunctions").setLevel(logging.CRITICAL)
        self._mock.start()
        boto3.setup_default_session(botocore_session=_botocore_session())
        SerializedStubber.install()
        for extension in self._extensions:
            extension.install()
        self._install_lambda_dispatch()
        self.emulator.set_authorizer(KubernetesAuthorizer(ACCOUNT_ID, self._access, self.emulator))
        self.kueue.install()
        self.training.install()
        self.kuberay.install()
        self.downloads.install()
        self.serving.install()
        self.daemon_sets.install()
        self.inference.install()
        self.spaces.install()
        self.volumes.install()
        self._provision()
        self.events.install()

    def stop(self) -> None:
        self.events.uninstall()
        if self._original_invoke is not None:
            LambdaSimpleBackend.invoke = self._original_invoke  # type: ignore[method-assign]
        for extension in reversed(self._extensions):
            extension.uninstall()
        SerializedStubber.uninstall()
        if self._mock is not None:
            self._mock.stop()
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        wiring.reset()

    def _eks_cluster_active(self, name: str) -> None:
        self.emulator.add_cluster(name)
        self.training.serve(name)
        self.inference.serve(name)
        self.spaces.serve(name)

    def _eks_cluster_schedulable(self, name: str, tolerates: tuple[str, ...]) -> bool:
        """Whether a node of an EKS cluster can run a pod tolerating the taint keys `tolerates` (read in place: a
        cluster of thousands of nodes answers at its first schedulable node, copying none)."""
        if name not in self.emulator.clusters():
            return False
        return self.emulator.store(name).any("", "v1", "nodes", lambda node: can_run_pods(node, tolerates))

    def _eks_cluster_deleted(self, region: str, name: str) -> None:
        self.emulator.remove_cluster(name)
        self._access.forget(region, name)

    # --- provisioning (what `cdk deploy` does in AWS) ----------------------------------------

    def _provision(self) -> None:
        """Create the control plane's resources and set the functions' settings that name them."""
        deployment = Deployment(Settings.from_environment(os.environ).deployment_name, HOME_REGION, "aws")
        options = self.options
        environment = Settings.environment(
            **provision(deployment, ACCOUNT_ID, _function_arn(STEPS_FUNCTION)),
            iam_role_bindings={},
            mcp_role_arn=MCP_ROLE_ARN,
            mcp_max_role="admin",
            poll_seconds=options.poll_seconds,
            poll_max_seconds=options.poll_seconds,
            operation_wait_poll_seconds=options.operation_wait_poll_seconds,
            workload_wait_poll_seconds=options.operation_wait_poll_seconds,
            ws_management_url=MANAGEMENT_URL,
            ws_function_name=f"{FUNCTION_PREFIX}{WS_FUNCTION}",
            ws_pusher_tick_seconds=min(1.0, options.seconds_per_log_line),
        )
        Settings.from_environment(environment)  # what the functions will read must be valid
        self._set_env(environment)
        wiring.reset()

    def _set_env(self, values: dict[str, str]) -> None:
        for name, value in values.items():
            self._saved_env.setdefault(name, os.environ.get(name))
            os.environ[name] = value

    # --- Lambda: dispatch to the real step handlers ------------------------------------------

    def _install_lambda_dispatch(self) -> None:
        self._original_invoke = LambdaSimpleBackend.invoke
        faults = self.faults

        def invoke(
            backend: Any, function_name: str, qualifier: Any, body: Any, headers: Any, response_headers: dict[str, str]
        ) -> bytes:
            name = function_name.rsplit(":", 1)[-1].removeprefix(FUNCTION_PREFIX)
            if name == WS_FUNCTION:
                return _invoke_async(function_name, json.loads(body or "{}"))
            if name != STEPS_FUNCTION:
                return _function_error(response_headers, "ResourceNotFoundException", f"No function {name}")
            event = json.loads(body or "{}")
            key = step_key(str(event.get("step", "")))
            if faults.take(key, (event.get("state") or {}).get("clusterTag")):
                return _function_error(
                    response_headers,
                    "SandboxFaultInjected",
                    f"Fault injected into step {key} through /sandbox/faults",
                )
            try:
                with running_step(key):
                    result = step_handler(event, LambdaContext(function_name))
            except Exception as error:  # noqa: BLE001 - a Lambda runtime reports every unhandled error
                return _function_error(response_headers, type(error).__name__, str(error))
            return json.dumps(result).encode()

        LambdaSimpleBackend.invoke = invoke  # type: ignore[method-assign,assignment]

    def add_fault(self, step: str, times: int, after: int = 0, cluster_tag: str | None = None) -> str:
        """Fail `step` `times` times (after `after` passes), in any cluster's workflow or only in `cluster_tag`'s."""
        key = step_key(step)
        if key not in step_keys():
            raise ValueError(f"Unknown step '{step}'; steps are: {', '.join(step_keys())}")
        self.faults.add(key, times, after, cluster_tag)
        return key


def _import_whole_packages() -> None:
    """Import, before any handler runs, the packages the handlers import on first use whose modules import the package
    back (kubernetes: `dynamic.discovery` reads `kubernetes.__version__` while `kubernetes/__init__` imports
    `dynamic`). CPython imports a submodule without waiting for a package another thread is still initializing, so
    two first uses in two threads (`from kubernetes.dynamic import ...` beside `from kubernetes.client.exceptions
    import ...`) deadlock and both fail with "partially initialized module" (python/cpython#83065). A Lambda process
    runs one invocation at a time; the sandbox runs every function's invocations at once in one process."""
    import kubernetes  # noqa: F401


def _invoke_async(function_name: str, event: dict[str, Any]) -> bytes:
    """The WebSocket function's only invocations are asynchronous (log pushers): run it on a thread of its own."""

    def run() -> None:
        try:
            ws_handler(event, LambdaContext(function_name))
        except Exception:  # an asynchronous invocation's error goes to the function's log
            logging.getLogger(__name__).exception("%s failed", function_name)

    threading.Thread(target=run, name=f"{function_name}-{event.get('topic', '')}", daemon=True).start()
    return b""


def _function_arn(module: str) -> str:
    return f"arn:aws:lambda:{HOME_REGION}:{ACCOUNT_ID}:function:{FUNCTION_PREFIX}{module}"


def _function_error(response_headers: dict[str, str], error_type: str, message: str) -> bytes:
    response_headers["x-amz-function-error"] = "Unhandled"
    return json.dumps({"errorType": error_type, "errorMessage": message}).encode()
