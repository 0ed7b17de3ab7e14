"""Managed inference endpoints: the create request (one contract for REST, MCP and the console), the endpoint
views. Calling one takes `controlplane.models.chat`'s contract, as a self-managed model service does.

A `CreateEndpointRequest` deploys either a model the caller describes (`model`: source, worker image, port,
resources → an `InferenceEndpointConfig`) or a SageMaker JumpStart catalog model (`jumpStart` → a
`JumpStartModel`); the manifests are built in `controlplane.core.endpoints.manifest`.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import Field, StringConstraints, model_validator

from controlplane.models.common import Contract, PageView, View, WorkloadWait
from controlplane.models.downloads import MANAGED_SECRET, SecretName
from controlplane.models.training import ENV_NAME_PATTERN, JobName

# An endpoint's name is a DNS label, short enough that `is-<clusterTag>-<name>` is a SageMaker endpoint name (≤ 63).
ENDPOINT_NAME_PATTERN = r"^[a-z]([a-z0-9-]{0,36}[a-z0-9])?$"
ENDPOINT_NAME_RULE = "1-38 characters: a lowercase letter first, then lowercase letters, digits or hyphens"
EndpointName = Annotated[str, StringConstraints(pattern=ENDPOINT_NAME_PATTERN)]
INSTANCE_TYPE_PATTERN = r"^ml\.[a-z0-9]+\.[a-z0-9]+$"
# The inference operator's CRD takes a Hugging Face model as `<organization>/<model>` only.
HF_MODEL_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$"
S3_BUCKET_PATTERN = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"
# A location inside a bucket or file system: path segments of safe characters, no `..`.
MODEL_PATH_PATTERN = r"^[A-Za-z0-9_-][A-Za-z0-9._=-]{0,127}(/[A-Za-z0-9_-][A-Za-z0-9._=-]{0,127}){0,15}/?$"
ModelPath = Annotated[str, StringConstraints(pattern=MODEL_PATH_PATTERN)]


class EndpointKind(StrEnum):
    INFERENCE_ENDPOINT_CONFIG = "InferenceEndpointConfig"
    JUMPSTART_MODEL = "JumpStartModel"


class EndpointState(StrEnum):
    """The inference operator's `status.state` (Pending until it reports one)."""

    DEPLOYMENT_PENDING = "DeploymentPending"
    DEPLOYMENT_IN_PROGRESS = "DeploymentInProgress"
    DEPLOYMENT_FAILED = "DeploymentFailed"
    DEPLOYMENT_COMPLETE = "DeploymentComplete"
    DELETION_PENDING = "DeletionPending"
    DELETION_IN_PROGRESS = "DeletionInProgress"
    DELETION_FAILED = "DeletionFailed"
    DELETION_COMPLETE = "DeletionComplete"


class RoutingStrategy(StrEnum):
    PREFIX_AWARE = "prefixaware"
    KV_AWARE = "kvaware"
    SESSION = "session"
    ROUND_ROBIN = "roundrobin"


class L2CacheBackend(StrEnum):
    TIERED_STORAGE = "tieredstorage"
    REDIS = "redis"


# --- the model's source ------------------------------------------------------------------------


class S3Source(Contract):
    path: ModelPath = Field(description="The model's prefix, e.g. `models/Qwen/Qwen3-0.6B`.")
    bucket: Annotated[str, StringConstraints(pattern=S3_BUCKET_PATTERN)] | None = Field(
        default=None, description="Absent: the cluster's S3 claim's."
    )


class FsxSource(Contract):
    fileSystemId: Annotated[str, StringConstraints(pattern=r"^fs-[0-9a-f]{8,17}$")]
    path: ModelPath = Field(description="The model's directory.")
    dnsName: Annotated[str, StringConstraints(max_length=253)] | None = None
    mountName: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_]{1,16}$")] | None = None


class HuggingFaceSource(Contract):
    modelId: Annotated[str, StringConstraints(pattern=HF_MODEL_ID_PATTERN)] = Field(
        description="e.g. `Qwen/Qwen3-0.6B`."
    )
    commitSha: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")] | None = Field(
        default=None,
        description="A full commit SHA (no branch or tag); absent: main.",
    )
    tokenSecret: SecretName | None = Field(
        default=None,
        description=f"The Hugging Face token's Secret in the endpoint's namespace ({MANAGED_SECRET}).",
    )


class EndpointModelSource(Contract):
    """Exactly one of s3, fsx, huggingFace or job."""

    s3: S3Source | None = None
    fsx: FsxSource | None = None
    huggingFace: HuggingFaceSource | None = None
    job: JobName | None = Field(default=None, description="A Succeeded training job: its output is the model.")

    @model_validator(mode="after")
    def _exactly_one(self) -> EndpointModelSource:
        given = [name for name in ("s3", "fsx", "huggingFace", "job") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one model source of s3, fsx, huggingFace or job (got {given or 'none'})")
        return self


# --- what the operator adds around the model ---------------------------------------------------


class L2Cache(Contract):
    backend: L2CacheBackend = Field(description="tieredstorage needs the tieredStorage feature, redis `localUrl`.")
    localUrl: Annotated[str, StringConstraints(pattern=r"^rediss?://[^\s]{1,500}$")] | None = Field(
        default=None, description="redis backend only."
    )


class KvCache(Contract):
    """The KV cache: L1 in the workers' CPU memory, L2 on tiered storage or Redis."""

    enableL1Cache: bool = True
    l2: L2Cache | None = None


class Routing(Contract):
    """Intelligent routing across the workers; fixed at creation (delete and create to change it)."""

    strategy: RoutingStrategy = RoutingStrategy.PREFIX_AWARE


class Autoscaling(Contract):
    minReplicas: int = Field(default=1, ge=0, le=100)
    maxReplicas: int = Field(default=5, ge=1, le=100)
    cooldownSeconds: int = Field(default=300, ge=0, le=3600)

    @model_validator(mode="after")
    def _ordered(self) -> Autoscaling:
        if self.minReplicas > self.maxReplicas:
            raise ValueError("autoscaling.minReplicas must not exceed autoscaling.maxReplicas")
        return self


class ModelSpec(Contract):
    """A model the caller describes: where it is and the serving container that loads it."""

    source: EndpointModelSource
    image: str = Field(min_length=1, max_length=512, description="The serving image.")
    invocationPort: int = Field(default=8080, ge=1, le=65535, description="The serving port.")
    gpus: int = Field(default=1, ge=0, le=64, description="Per worker.")
    cpu: Annotated[str, StringConstraints(pattern=r"^\d{1,4}(m|\.\d{1,3})?$")] | None = Field(
        default=None, description="Per worker, e.g. `4`."
    )
    memoryGi: int | None = Field(default=None, ge=1, le=4096, description="Per worker.")
    args: list[Annotated[str, StringConstraints(max_length=4096)]] = Field(default_factory=list, max_length=64)
    environment: dict[Annotated[str, StringConstraints(pattern=ENV_NAME_PATTERN)], str] = Field(
        default_factory=dict, max_length=100
    )


class JumpStartSpec(Contract):
    """A SageMaker JumpStart catalog model (SageMakerPublicHub)."""

    modelId: Annotated[str, StringConstraints(pattern=r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")] = Field(
        description="e.g. `deepseek-llm-r1-distill-qwen-1-5b`."
    )
    modelVersion: Annotated[str, StringConstraints(pattern=r"^\d{1,4}\.\d{1,4}\.\d{1,4}$")] | None = Field(
        default=None, description="Absent: the newest."
    )
    acceptEula: bool = Field(default=False, description="Gated models.")


class CreateEndpointRequest(Contract):
    """A managed endpoint: `replicas` workers on `instanceType` behind a SageMaker endpoint, from `model` or
    `jumpStart` (exactly one)."""

    name: EndpointName = Field(description=f"Unique in the cluster ({ENDPOINT_NAME_RULE}).")
    instanceType: Annotated[str, StringConstraints(pattern=INSTANCE_TYPE_PATTERN)] = Field(
        description="One the cluster has."
    )
    replicas: int = Field(default=1, ge=1, le=100)
    model: ModelSpec | None = Field(default=None, description="Your model (or jumpStart).")
    jumpStart: JumpStartSpec | None = Field(default=None, description="A JumpStart catalog model.")
    kvCache: KvCache | None = Field(default=None, description="Absent: L1 only.")
    routing: Routing | None = Field(default=None, description="Immutable.")
    autoscaling: Autoscaling | None = None

    @model_validator(mode="after")
    def _one_model(self) -> CreateEndpointRequest:
        if (self.model is None) == (self.jumpStart is None):
            raise ValueError("give exactly one of `model` (your model → InferenceEndpointConfig) or `jumpStart`")
        return self

    @property
    def kind(self) -> EndpointKind:
        return EndpointKind.JUMPSTART_MODEL if self.jumpStart else EndpointKind.INFERENCE_ENDPOINT_CONFIG


# --- views ---------------------------------------------------------------------------------------


class EndpointCondition(View):
    type: str
    status: str
    reason: str | None = None
    message: str | None = None


class EndpointPod(View):
    name: str
    node: str | None = None
    phase: str


class EndpointSummary(View):
    name: str
    kind: EndpointKind
    state: EndpointState
    model: str = Field(description="The model: its JumpStart id, Hugging Face id, or storage location.")
    instanceType: str | None = None
    replicas: int
    createdAt: datetime | None = None


class EndpointDetail(EndpointSummary):
    namespace: str
    sageMakerEndpointName: str | None = Field(default=None, description="The SageMaker endpoint chat calls.")
    readyReplicas: int = 0
    routing: RoutingStrategy | None = None
    l2Cache: L2CacheBackend | None = None
    conditions: list[EndpointCondition] = Field(default_factory=list)
    pods: list[EndpointPod] = Field(default_factory=list)


class EndpointWait(WorkloadWait):
    """Done at DeploymentComplete or DeploymentFailed (after a delete: DeletionComplete or DeletionFailed)."""

    endpoint: EndpointDetail


class EndpointList(PageView):
    clusterTag: str
    endpoints: list[EndpointSummary]


class EndpointManifest(View):
    """What a dry run of a create would submit."""

    dryRun: bool = True
    kind: EndpointKind
    manifest: dict[str, Any]
