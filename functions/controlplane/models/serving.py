"""Self-managed model servers: the deploy request (one contract for REST, MCP and the console), updates, the model
pool and the cluster's model services. Calling one takes `controlplane.models.chat`'s contract.

A `DeployModelRequest` carries a serving command (`vllm serve …`, `python -m sglang.launch_server …`, or an image
and its command) and an explicit GPU count; how the command is read is `controlplane.core.serving.command`'s job.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from controlplane.models.common import Contract, PageView, View, WorkloadWait
from controlplane.models.downloads import MANAGED_SECRET, HuggingFaceToken, SecretName
from controlplane.models.governance import TeamWork
from controlplane.models.training import ENV_NAME_PATTERN, JobName

# A deployment's name is also its Service's (a DNS-1035 label), short enough for the pods' suffixes.
DEPLOYMENT_NAME_PATTERN = r"^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$"
DEPLOYMENT_NAME_RULE = "1-40 characters: a lowercase letter first, then lowercase letters, digits or hyphens"
DeploymentName = Annotated[str, StringConstraints(pattern=DEPLOYMENT_NAME_PATTERN)]
POD_NAME_PATTERN = r"^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$"
GPU_COUNT_QUESTION = (
    "How many GPUs should each replica of the model server get? Pass it as `gpus` (1-64); it is never derived "
    "from --tensor-parallel-size, which must not exceed it."
)


class ServiceType(StrEnum):
    """Internet-facing load balancer, cluster-internal, or none (pool: warm workers bound to services one by one)."""

    EXTERNAL = "external"
    INTERNAL = "internal"
    POOL = "pool"


class JobModelSource(Contract):
    """Where the model comes from when it is not named in the command: a finished training job's output."""

    job: JobName = Field(description="A Succeeded training job: its output is served.")


class DeployModelRequest(TeamWork):
    """A model server as a Deployment: `replicas` pods, each with `gpus` GPUs, and a Service of `serviceType`."""

    name: DeploymentName = Field(description=f"Also the Service's ({DEPLOYMENT_NAME_RULE}).")
    command: str = Field(
        min_length=1,
        max_length=4096,
        description="`vllm serve <model> …`, `python -m sglang.launch_server --model-path <model> …`, or any "
        "command with `image`.",
    )
    gpus: int = Field(
        ge=1, le=64, description="Per replica; never derived from --tensor-parallel-size, which must not exceed it."
    )
    image: str | None = Field(default=None, min_length=1, max_length=512, description="Inferred for vLLM and SGLang.")
    port: int | None = Field(default=None, ge=1, le=65535, description="Inferred from --port or the engine.")
    replicas: int = Field(default=1, ge=1, le=64)
    instanceType: str | None = None
    serviceType: ServiceType = ServiceType.INTERNAL
    modelSource: JobModelSource | None = Field(default=None, description="Instead of the command's model.")
    huggingFaceToken: HuggingFaceToken | None = Field(
        default=None,
        description="For gated models; kept only in a Kubernetes Secret.",
    )
    huggingFaceTokenSecret: SecretName | None = Field(
        default=None,
        description=f"Instead of `huggingFaceToken`: a Secret of the server's namespace ({MANAGED_SECRET}).",
    )
    sharedMemoryGi: int = Field(default=16, ge=1, le=2048, description="Size of /dev/shm.")
    environment: dict[Annotated[str, StringConstraints(pattern=ENV_NAME_PATTERN)], str] = Field(
        default_factory=dict, max_length=100
    )

    @model_validator(mode="before")
    @classmethod
    def _gpus_given(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("gpus") is None:
            raise ValueError(f"`gpus` is missing. {GPU_COUNT_QUESTION}")
        return data

    @model_validator(mode="after")
    def _one_token_source(self) -> DeployModelRequest:
        if self.huggingFaceToken is not None and self.huggingFaceTokenSecret is not None:
            raise ValueError("Pass either `huggingFaceToken` or `huggingFaceTokenSecret`, not both.")
        if self.team is not None and self.serviceType == ServiceType.POOL:
            raise ValueError(
                "Pool workers run in the cluster's namespace, not a team's: drop `team`, or serve internal."
            )
        return self


class UpdateDeploymentRequest(Contract):
    """An explicit diff: only the fields given change."""

    replicas: int | None = Field(default=None, ge=0, le=64)
    image: str | None = Field(default=None, min_length=1, max_length=512)

    @model_validator(mode="after")
    def _something(self) -> UpdateDeploymentRequest:
        if self.replicas is None and self.image is None:
            raise ValueError("Give `replicas` or `image`: what to change.")
        return self


class ServingPod(View):
    name: str
    uid: str
    node: str | None = None
    ready: bool
    queued: bool = Field(default=False, description="Kueue holds it (a team's server): it waits for the quota.")
    service: str | None = Field(default=None, description="For a pool worker: the service it is bound to.")


class DeploymentSummary(View):
    name: str
    namespace: str | None = Field(default=None, description="The claim's, or a team's hyperpod-ns-<team>.")
    serviceType: ServiceType
    engine: Literal["vllm", "sglang", "custom"]
    model: str | None = None
    image: str
    gpus: int
    replicas: int
    readyReplicas: int
    status: Literal["Loading", "Queued", "Ready", "Scaled to zero"] = Field(
        description="Queued: a team's server whose pods Kueue holds (task governance); waitingReason says why."
    )
    waitingReason: str | None = Field(default=None, description="While Queued: Kueue's reason, from a pod's Workload.")
    instanceType: str | None = None
    port: int
    createdAt: datetime | None = None


class DeploymentDetail(DeploymentSummary):
    namespace: str  # type: ignore[assignment]  # always known once the server is read
    command: list[str]
    modelSourceUri: str | None = Field(default=None, description="The S3 output of the training job served.")
    pods: list[ServingPod]


class DeploymentWait(WorkloadWait):
    """Done once the model server is neither Loading nor Queued: Ready (every replica answers its health path) or
    Scaled to zero."""

    deployment: DeploymentDetail


class DeploymentList(PageView):
    clusterTag: str
    deployments: list[DeploymentSummary]


class DeploymentUpdate(View):
    deployment: DeploymentDetail
    changes: dict[str, Literal["unchanged", "updated"]]
    dryRun: bool = False


class ModelService(View):
    name: str
    namespace: str
    type: Literal["external", "internal"]
    model: str = Field(description="The deployment whose pods serve it.")
    port: int
    ready: bool = Field(description="At least one ready pod serves it.")
    readyPods: int
    url: str = Field(description="The in-cluster URL.")
    externalUrl: str | None = Field(default=None, description="The load balancer's URL, once it has an address.")


class ServiceList(PageView):
    clusterTag: str
    services: list[ModelService]


class PoolWorker(View):
    pod: str
    uid: str
    model: str
    service: str | None = Field(default=None, description="The service it is bound to; None when unassigned.")
    ready: bool
    node: str | None = None


class ModelPool(PageView):
    clusterTag: str
    workers: list[PoolWorker]


class PoolActionRequest(Contract):
    """Bind a warm worker to a service (the Service is created on first bind), or return it to the pool."""

    action: Literal["bind", "unbind"]
    worker: Annotated[str, StringConstraints(pattern=POD_NAME_PATTERN)] = Field(description="The worker's pod.")
    service: DeploymentName | None = Field(default=None, description="For bind: the service to serve through.")
    serviceType: Literal["internal", "external"] = Field(
        default="internal", description="For bind: the Service's kind if it is new."
    )

    @model_validator(mode="after")
    def _service_for_bind(self) -> PoolActionRequest:
        if self.action == "bind" and self.service is None:
            raise ValueError("bind needs `service`: the name of the service the worker will serve.")
        if self.action == "unbind" and self.service is not None:
            raise ValueError("unbind takes no `service`; it returns the worker to the pool.")
        return self


class PoolActionResult(View):
    worker: PoolWorker
    message: str
