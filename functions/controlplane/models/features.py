"""The Advanced Features panel: live state, the explicit-diff PATCH, and the per-feature workflow input.

A PATCH carries only the features the caller touched; an absent (or null) feature is never read as
intent. Each change becomes one stage of a single `update_cluster_features` operation.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from controlplane.models.clusters import PlannedAction
from controlplane.models.common import Contract, View
from controlplane.models.operations import OperationView

MIN_TIERED_PERCENTAGE = 20
MAX_TIERED_PERCENTAGE = 100
# A HyperpodNodeClass names at most ten instance groups.
MAX_KARPENTER_GROUPS = 10


class Feature(StrEnum):
    """Feature names: the PATCH body fields, the GET keys and the operation's stage names."""

    CERT_MANAGER = "certManager"
    FSX_CSI_DRIVER = "fsxCsiDriver"
    KUBERAY_OPERATOR = "kuberayOperator"
    TIERED_STORAGE = "tieredStorage"
    TRAINING_OPERATOR = "trainingOperator"
    OBSERVABILITY = "observability"
    INFERENCE_OPERATOR = "inferenceOperator"
    KARPENTER = "karpenter"


Outcome = Literal["unchanged", "enabled", "disabled", "updated"]
Change = Literal["none", "enable", "disable", "update"]
LiveState = Literal["enabled", "disabled", "partial"]


class ToggleFeature(Contract):
    enabled: bool = Field(description="true installs the feature, false removes exactly what enabling created.")


class TieredStorageFeature(Contract):
    """Managed tiered checkpointing: TieredStorageConfig on the HyperPod cluster plus its IRSA chain."""

    enabled: bool
    configMode: Literal["default", "custom"] | None = Field(
        default=None, description="default lets HyperPod choose the memory share; custom needs percentage."
    )
    percentage: int | None = Field(
        default=None,
        ge=MIN_TIERED_PERCENTAGE,
        le=MAX_TIERED_PERCENTAGE,
        description="Instance memory reserved for checkpoints (20-100), with configMode custom.",
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
        description="Instance groups Karpenter may scale (1-10, on-demand, without training plans or deep health "
        "checks). Needed to enable; omitted keeps the current ones.",
    )

    @model_validator(mode="after")
    def _groups_only_when_enabled(self) -> KarpenterFeature:
        if not self.enabled and self.instanceGroups is not None:
            raise ValueError("karpenter: instanceGroups apply only with enabled true")
        if self.instanceGroups is not None and len(set(self.instanceGroups)) != len(self.instanceGroups):
            raise ValueError("karpenter: instanceGroups lists a group more than once")
        return self


class UpdateFeaturesRequest(Contract):
    """Only the features to change. Absent means unchanged; nothing here implies anything about the others."""

    certManager: ToggleFeature | None = Field(
        default=None, description="EKS add-on cert-manager (installed by the dependencies stage)."
    )
    fsxCsiDriver: ToggleFeature | None = Field(
        default=None, description="EKS add-on aws-fsx-csi-driver with its own IRSA role (FSx for Lustre volumes)."
    )
    kuberayOperator: ToggleFeature | None = Field(
        default=None, description="KubeRay operator (RayCluster, RayJob, RayService) in namespace kuberay-operator."
    )
    tieredStorage: TieredStorageFeature | None = Field(
        default=None, description="Managed tiered checkpointing and its IRSA chain (needs the HyperPod cluster)."
    )
    trainingOperator: ToggleFeature | None = Field(
        default=None, description="HyperPod training operator add-on (needs certManager and the HyperPod cluster)."
    )
    observability: ToggleFeature | None = Field(
        default=None,
        description="HyperPod observability: an Amazon Managed Service for Prometheus workspace for the cluster and "
        "the observability add-on writing to it, with its pod identity role (needs the HyperPod cluster). Grafana is "
        "yours to bring: the feature's settings give the workspace endpoint to add as a Prometheus data source.",
    )
    inferenceOperator: ToggleFeature | None = Field(
        default=None,
        description="HyperPod inference operator add-on with its execution role (IRSA) and TLS certificate bucket "
        "(needs certManager, fsxCsiDriver and the HyperPod cluster).",
    )
    karpenter: KarpenterFeature | None = Field(
        default=None,
        description="Managed Karpenter autoscaling (AutoScaling with a ClusterRole, HyperpodNodeClass and NodePool "
        "over the chosen instance groups; needs the HyperPod cluster with NodeRecovery Automatic).",
    )

    @model_validator(mode="after")
    def _touches_something(self) -> UpdateFeaturesRequest:
        if not self.touched():
            raise ValueError(
                'name at least one feature to change, e.g. {"tieredStorage": {"enabled": true}}; '
                f"features: {', '.join(feature.value for feature in Feature)}"
            )
        return self

    def touched(self) -> dict[Feature, ToggleFeature | TieredStorageFeature | KarpenterFeature]:
        return {feature: value for feature in Feature if (value := getattr(self, feature.value)) is not None}


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


class FeatureChanges(View):
    """Every feature with its change ("none" for untouched), so each ASL Choice reads a present path."""

    certManager: FeatureChange = Field(default_factory=FeatureChange)
    fsxCsiDriver: FeatureChange = Field(default_factory=FeatureChange)
    kuberayOperator: FeatureChange = Field(default_factory=FeatureChange)
    tieredStorage: FeatureChange = Field(default_factory=FeatureChange)
    trainingOperator: FeatureChange = Field(default_factory=FeatureChange)
    observability: FeatureChange = Field(default_factory=FeatureChange)
    inferenceOperator: FeatureChange = Field(default_factory=FeatureChange)
    karpenter: FeatureChange = Field(default_factory=FeatureChange)

    def of(self, feature: Feature) -> FeatureChange:
        change: FeatureChange = getattr(self, feature.value)
        return change
