"""HyperPod observability: the EKS add-on with a pod identity role (Prometheus remote write, CloudWatch agent)
for its collector's ServiceAccount, once the pod identity agent and the HyperPod cluster are there."""

from __future__ import annotations

from functools import partial

from controlplane.config import FeaturePins
from controlplane.core.features.addon import AddonFeature, AddonRole, require_pod_identity_agent
from controlplane.core.naming import observability_role_name
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.models.features import Feature

OBSERVABILITY_ADDON = "amazon-sagemaker-hyperpod-observability"
OBSERVABILITY_SERVICE_ACCOUNT = "hyperpod-observability-operator-otel-collector"
OBSERVABILITY_POLICIES = ("AmazonPrometheusRemoteWriteAccess", "CloudWatchAgentServerPolicy")


def observability_feature(iam: IamGateway, eks: EksGateway, pins: FeaturePins, boundary_arn: str) -> AddonFeature:
    role = AddonRole(
        iam,
        observability_role_name,
        OBSERVABILITY_POLICIES,
        boundary_arn=boundary_arn,
        pod_identity=OBSERVABILITY_SERVICE_ACCOUNT,
    )
    return AddonFeature(
        eks,
        Feature.OBSERVABILITY,
        OBSERVABILITY_ADDON,
        pins,
        precondition=partial(require_pod_identity_agent, eks),
        role=role,
    )
