"""HyperPod task governance: the EKS add-on that installs Kueue and the controller which turns the cluster's scheduler
config and the teams' compute quotas into Kueue objects (one `hyperpod-ns-<team>` namespace, LocalQueue and
ClusterQueue per team). It reports to the HyperPod cluster, so it needs one; no role, no bucket."""

from __future__ import annotations

from controlplane.core.features.addon import AddonFeature
from controlplane.core.features.declaration import AddonPin, FeatureDeclaration, FeaturePorts
from controlplane.core.features.facts import ClusterFacts
from controlplane.models.features import Feature

TASK_GOVERNANCE_ADDON = "amazon-sagemaker-hyperpod-taskgovernance"
# v1.6 packages Kueue v0.19.2; v1.3 or later is the one that works beside the training operator
# [doc: sagemaker-hyperpod-eks-operate-console-ui-governance-upgrade].
_PIN = AddonPin(TASK_GOVERNANCE_ADDON, "v1.6.0-eksbuild.1")


def _require_hyperpod(facts: ClusterFacts) -> None:
    facts.require_hyperpod()


def _build(ports: FeaturePorts) -> AddonFeature:
    return AddonFeature(
        ports.eks, Feature.TASK_GOVERNANCE, TASK_GOVERNANCE_ADDON, ports.version(_PIN), precondition=_require_hyperpod
    )


FEATURE = FeatureDeclaration(
    Feature.TASK_GOVERNANCE,
    "EKS add-on amazon-sagemaker-hyperpod-taskgovernance (Kueue and the teams' queues, from the scheduler config and "
    "compute quotas)",
    _build,
    needs_hyperpod=True,
    addon=_PIN,
)
