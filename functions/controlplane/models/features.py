"""The Advanced Features panel: live state, the explicit-diff PATCH, and the per-feature workflow input.

A PATCH carries only the features the caller touched; an absent (or null) feature is never read as
intent. Each change becomes one stage of a single `update_cluster_features` operation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field, RootModel, create_model, model_validator
from pydantic_core import PydanticUndefined

from controlplane.models.clusters import PlannedAction
from controlplane.models.common import Contract, View
from controlplane.models.operations import OperationView

MIN_TIERED_PERCENTAGE = 20
MAX_TIERED_PERCENTAGE = 100
# A HyperpodNodeClass names at most ten instance groups.
MAX_KARPENTER_GROUPS = 10


Outcome = Literal["unchanged", "enabled", "disabled", "updated"]
Change = Literal["none", "enable", "disable", "update"]
LiveState = Literal["enabled", "disabled", "partial"]


class ToggleFeature(Contract):
    enabled: bool


class TieredStorageFeature(Contract):
    """Managed tiered checkpointing: TieredStorageConfig on the HyperPod cluster plus its IRSA chain."""

    enabled: bool
    configMode: Literal["default", "custom"] | None = Field(default=None, description="custom needs percentage.")
    percentage: int | None = Field(
        default=None,
        ge=MIN_TIERED_PERCENTAGE,
        le=MAX_TIERED_PERCENTAGE,
        description="Share of instance memory for checkpoints.",
    )

    @model_validator(mode="after")
    def _mode_matches_percentage(self) -> TieredStorageFeature:
        if not self.enabled and (self.configMode is not None or self.percentage is not None):
            raise ValueError("tieredStorage: configMode and percentage apply only with enabled true")
        if self.configMode == "custom" and self.percentage is None:
            raise ValueError("tieredStorage: configMode custom needs percentage (20-100)")
        if self.percentage is not None and self.configMode == "default":
            raise ValueError("tieredStorage: percentage needs configMode custom (or omit configMode)")
        return self


class KarpenterFeature(Contract):
    """Managed Karpenter autoscaling: a HyperpodNodeClass over the chosen instance groups and a NodePool."""

    enabled: bool
    instanceGroups: list[str] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_KARPENTER_GROUPS,
        description="On-demand groups without training plans or deep health checks. Needed to enable; omitted "
        "keeps the current ones.",
    )

    @model_validator(mode="after")
    def _groups_only_when_enabled(self) -> KarpenterFeature:
        if not self.enabled and self.instanceGroups is not None:
            raise ValueError("karpenter: instanceGroups apply only with enabled true")
        if self.instanceGroups is not None and len(set(self.instanceGroups)) != len(self.instanceGroups):
            raise ValueError("karpenter: instanceGroups lists a group more than once")
        return self


FeatureRequest = ToggleFeature | TieredStorageFeature | KarpenterFeature


class Feature(StrEnum):
    """Each feature's public contract, declared once: its name (the PATCH body's field, the GET key, the operation's
    stage), its label (the field's title in the OpenAPI document, which the console shows), what it does (the
    field's description, which the MCP tool repeats) and its request shape. The request, the workflow input and the
    update workflow's stages are built from these; how a feature is built is its module in `core.features.catalog`,
    found by its name. In dependency order: enabling runs in this order, disabling in reverse."""

    label: str
    description: str
    request: type[FeatureRequest]

    def __new__(
        cls, value: str, label: str, description: str, request: type[FeatureRequest] = ToggleFeature
    ) -> Feature:
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        member.description = description
        member.request = request
        return member

    @property
    def key(self) -> str:
        """`fsx_csi_driver` for fsxCsiDriver: the feature's module in `core.features.catalog`, its steps' group."""
        return re.sub(r"(?=[A-Z])", "_", self.value).lower()

    CERT_MANAGER = ("certManager", "cert-manager", "EKS add-on cert-manager.")
    FSX_CSI_DRIVER = (
        "fsxCsiDriver",
        "FSx CSI driver",
        "EKS add-on aws-fsx-csi-driver (FSx for Lustre volumes).",
    )
    KUBERAY_OPERATOR = (
        "kuberayOperator",
        "KubeRay operator",
        "KubeRay operator (RayCluster, RayJob, RayService).",
    )
    TIERED_STORAGE = (
        "tieredStorage",
        "Tiered checkpointing",
        "Managed tiered checkpointing.",
        TieredStorageFeature,
    )
    TRAINING_OPERATOR = (
        "trainingOperator",
        "Training operator",
        "HyperPod training operator (needs certManager).",
    )
    OBSERVABILITY = (
        "observability",
        "Observability",
        "A Prometheus workspace and HyperPod's observability add-on writing to it (bring your own Grafana).",
    )
    INFERENCE_OPERATOR = (
        "inferenceOperator",
        "Inference operator",
        "HyperPod inference operator (needs certManager and fsxCsiDriver).",
    )
    TASK_GOVERNANCE = (
        "taskGovernance",
        "Task governance",
        "Task governance add-on (Kueue): teams' compute quotas and priority classes (needs the HyperPod cluster).",
    )
    KARPENTER = (
        "karpenter",
        "Karpenter autoscaling",
        "Managed Karpenter autoscaling of instance groups (needs NodeRecovery Automatic).",
        KarpenterFeature,
    )
    DEV_SPACES = (
        "devSpaces",
        "Dev spaces",
        "Spaces add-on amazon-sagemaker-spaces: JupyterLab and Code Editor (needs certManager and the HyperPod "
        "cluster).",
    )


class FeatureRequests(Contract):
    """Only the features to change. Absent means unchanged; nothing here implies anything about the others."""

    @model_validator(mode="after")
    def _touches_something(self) -> FeatureRequests:
        if not self.touched():
            raise ValueError(
                'name at least one feature to change, e.g. {"tieredStorage": {"enabled": true}}; '
                f"features: {', '.join(feature.value for feature in Feature)}"
            )
        return self

    def touched(self) -> dict[Feature, FeatureRequest]:
        return {feature: value for feature in Feature if (value := getattr(self, feature.value, None)) is not None}


def _update_request() -> type[FeatureRequests]:
    """The PATCH body: one optional field per feature, titled and described by its declaration."""
    fields: dict[str, Any] = {
        feature.value: (
            feature.request | None,
            Field(default=None, title=feature.label, description=feature.description),
        )
        for feature in Feature
    }
    return create_model(
        "UpdateFeaturesRequest",
        __base__=FeatureRequests,
        __module__=__name__,
        __doc__=FeatureRequests.__doc__,
        **fields,
    )


if TYPE_CHECKING:
    UpdateFeaturesRequest = FeatureRequests
else:
    UpdateFeaturesRequest = _update_request()

# --- live state --------------------------------------------------------------------------------


class FeatureState(View):
    """One feature as the account and the cluster show it now."""

    enabled: bool = Field(description="true only when everything the feature needs is in place.")
    state: LiveState = Field(description="partial: some of the feature's resources exist (resume or disable).")
    status: str | None = Field(default=None, description="The underlying add-on or cluster status, if any.")
    settings: dict[str, str | int | list[str] | None] = Field(default_factory=dict)
    resources: list[str] = Field(default_factory=list, description="What exists now, e.g. role or add-on names.")
    requires: list[str] = Field(default_factory=list, description="Features this one needs enabled.")
    available: bool = Field(default=True, description="false when the cluster lacks what the feature builds on.")
    message: str | None = None


class FeaturesView(View):
    clusterTag: str
    hasHyperPod: bool
    features: dict[str, FeatureState]


class FeatureOutcome(View):
    outcome: Outcome
    stage: str | None = Field(default=None, description="The operation stage that makes the change.")
    message: str | None = None


class FeaturesUpdate(View):
    """PATCH result: per touched feature what happens; an operation when anything changes, or the plan and a
    confirmation token when anything would be disabled."""

    features: dict[str, FeatureOutcome]
    dryRun: bool = False
    actions: list[PlannedAction] = Field(default_factory=list)
    confirmationToken: str | None = Field(
        default=None, description="A disable's plan: repeat the request with this token once the person agrees."
    )
    expiresAt: datetime | None = None
    message: str | None = None
    operationId: str | None = None
    status: str | None = None
    stages: list[str] = Field(default_factory=list)
    statusTool: str = "operation_wait"
    operation: OperationView | None = None


# --- workflow input ----------------------------------------------------------------------------


class FeatureChange(View):
    change: Change = "none"
    percentage: int | None = None
    instanceGroups: list[str] | None = None


class FeatureChanges(RootModel[dict[Feature, FeatureChange]]):
    """Every feature with its change ("none" for untouched), so each ASL Choice reads a present path."""

    model_config = ConfigDict(defer_build=True)

    root: dict[Feature, FeatureChange] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _every_feature(cls, data: Any) -> Any:
        """The untouched features filled in; anything but a mapping (or nothing, `FeatureChanges()`) is refused."""
        given = {} if data is PydanticUndefined else data
        if not isinstance(given, Mapping):
            return given
        return {feature: given.get(feature, FeatureChange()) for feature in Feature}

    def of(self, feature: Feature) -> FeatureChange:
        return self.root[feature]
