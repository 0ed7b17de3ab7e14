"""How a feature declares itself, once, in its module in `core.features.catalog` (`FEATURE`): what enabling builds,
what it needs, what disabling keeps, the add-on or bundle it pins, the role the drift check expects, and how its
handler is built from the ports of a Region (`FeaturePorts`). The catalog, the dependency rules, the plans, the
steps' handlers, the pins and the drift check read these declarations; its public name, label and request shape are
its `Feature` member. Not here: any one feature.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from controlplane.config import ManifestPin
from controlplane.config.images import ImageTable
from controlplane.core.features.facts import FeatureHandler
from controlplane.core.naming import Deployment
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.iam import IamGateway, RoleBoundaries
from controlplane.core.ports.kubernetes import KubernetesGateway, ManifestRenderer
from controlplane.core.ports.prometheus import PrometheusGateway
from controlplane.core.ports.storage import BucketGateway
from controlplane.models.features import Feature


@dataclass(frozen=True)
class Kept:
    """A resource the feature uses but disabling keeps, and why (the disable plan says so)."""

    resource: str
    reason: str


@dataclass(frozen=True)
class AddonPin:
    """An EKS add-on at its reviewed version; no version: the dependencies stage's pin (it installs the add-on too,
    `config/cluster-dependencies.json`)."""

    name: str
    version: str | None = None


@dataclass(frozen=True)
class Bundle:
    """A pinned bundle of Kubernetes objects: its folder under `controlplane/manifests`, its file and image."""

    name: str
    pin: ManifestPin


@dataclass(frozen=True)
class FeaturePorts:
    """What the features' handlers are built from, for the clusters of one Region."""

    iam: IamGateway
    eks: EksGateway
    hyperpod: HyperPodGateway
    kubernetes: KubernetesGateway
    render: ManifestRenderer
    buckets: BucketGateway
    prometheus: PrometheusGateway
    boundaries: RoleBoundaries
    images: ImageTable
    # The dependencies stage's add-on pins, which an add-on pinned without a version takes.
    dependency_addons: Mapping[str, str]

    def version(self, addon: AddonPin) -> str:
        return addon.version or self.dependency_addons[addon.name]


@dataclass(frozen=True)
class FeatureDeclaration:
    """One feature. `summary`: what enabling builds, as a plan names it. `requires`: features that must be enabled
    first (enabled in the same request at the latest). `needs_hyperpod`: it builds on the HyperPod cluster. `kept`:
    what disabling leaves, and why. `addon` / `bundle`: what it installs, pinned. `role`: the IAM role it creates
    for a cluster, which the drift check expects while it is enabled."""

    feature: Feature
    summary: str
    build: Callable[[FeaturePorts], FeatureHandler]
    requires: tuple[Feature, ...] = ()
    needs_hyperpod: bool = False
    kept: tuple[Kept, ...] = ()
    addon: AddonPin | None = None
    bundle: Bundle | None = None
    role: Callable[[Deployment, str], str] | None = None
