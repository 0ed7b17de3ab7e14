"""What every feature reads first (`ClusterFacts`), and the shape every feature has (`FeatureHandler`).

A feature is level-triggered: `probe` observes, `ensure` and `remove` change only the difference and say
whether the feature has settled; the workflow calls them again until it has. Not here: any one feature.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from controlplane.core.naming import FEATURE_LABEL, Deployment
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.hyperpod import HyperPodCluster
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.features import Feature, FeatureChange, FeatureState

SETTLED_CLUSTER_STATUS = "InService"
HALF_BUILT = "Half-built: enable again to finish it, or disable it."


@dataclass(frozen=True)
class ClusterFacts:
    """The cluster's EKS control plane and HyperPod cluster, as one feature call sees them."""

    cluster_tag: str
    deployment: Deployment
    region: str
    account: str
    eks_name: str
    eks: EksCluster | None
    hyperpod: HyperPodCluster | None
    # Where training jobs run: the namespace of the cluster's storage claim (`core.naming.job_namespace`).
    job_namespace: str
    # Whether a node of the cluster is Ready and schedulable (the Kubernetes API is read on the first call only).
    schedulable_node: Callable[[], bool]

    @property
    def kubernetes(self) -> EksCluster | None:
        return self.eks if self.eks is not None and self.eks.status == "ACTIVE" else None

    def require_kubernetes(self) -> EksCluster:
        if self.kubernetes is None:
            raise ClusterNotReadyError(f"EKS cluster {self.eks_name} is not ACTIVE.")
        return self.kubernetes

    def require_hyperpod(self) -> HyperPodCluster:
        if self.hyperpod is None:
            raise ClusterNotReadyError(
                f"Cluster '{self.cluster_tag}' has no HyperPod cluster; create it (stage 4) before this feature."
            )
        return self.hyperpod


class FeatureHandler(Protocol):
    def probe(self, facts: ClusterFacts) -> FeatureState: ...

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        """Change what differs; True once the feature is fully in place and settled."""

    def remove(self, facts: ClusterFacts) -> bool:
        """Delete what the feature owns; True once it is all gone."""


def labelled(obj: dict[str, Any] | None, feature: Feature) -> bool:
    """Whether a live Kubernetes object carries the feature's label (so the feature applied it)."""
    return (((obj or {}).get("metadata") or {}).get("labels") or {}).get(FEATURE_LABEL) == feature.value
