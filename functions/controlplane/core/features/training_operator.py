"""The HyperPod training operator: the EKS add-on, once the operator's pod identity (made by the HyperPod stage)
and the pod identity agent (made by the dependencies stage) are there. cert-manager is a dependency rule."""

from __future__ import annotations

from functools import partial

from controlplane.config import FeaturePins
from controlplane.core.features.addon import AddonFeature, require_pod_identity_agent
from controlplane.core.features.facts import ClusterFacts
from controlplane.core.hyperpod.stage import TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT
from controlplane.core.ports.eks import EksGateway
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.features import Feature

TRAINING_OPERATOR_ADDON = "amazon-sagemaker-hyperpod-training-operator"


def training_operator_feature(eks: EksGateway, pins: FeaturePins) -> AddonFeature:
    return AddonFeature(
        eks,
        Feature.TRAINING_OPERATOR,
        TRAINING_OPERATOR_ADDON,
        pins,
        precondition=partial(_require_operator_identity, eks),
    )


def _require_operator_identity(eks: EksGateway, facts: ClusterFacts) -> None:
    """The operator's pod identity (stage 4) and the pod identity agent (stage 3) must be there."""
    require_pod_identity_agent(eks, facts)
    role = eks.pod_identity_role(facts.eks_name, TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT)
    if role is None:
        raise ClusterNotReadyError(
            f"The training operator's pod identity association ({TRAINING_OPERATOR_NAMESPACE}/"
            f"{TRAINING_OPERATOR_SERVICE_ACCOUNT}) is missing; resume the HyperPod stage that creates it."
        )
