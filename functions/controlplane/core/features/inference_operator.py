"""The HyperPod inference operator: its execution role (IRSA, also trusted by SageMaker), the TLS certificate
bucket, and the EKS add-on configured with both and the HyperPod cluster. cert-manager and the FSx CSI driver are
dependency rules; the stage-3 add-ons it needs ACTIVE are checked here."""

from __future__ import annotations

from functools import partial
from typing import Any

from controlplane.config import FeaturePins
from controlplane.core.dependencies.steps import S3_CSI_ADDON
from controlplane.core.features.addon import AddonBucket, AddonFeature, AddonRole
from controlplane.core.features.facts import ClusterFacts
from controlplane.core.identity import INFERENCE_OPERATOR_POLICY, SAGEMAKER_PRINCIPAL
from controlplane.core.naming import inference_operator_role_name, inference_tls_bucket_name
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.storage import BucketGateway
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.features import Feature

INFERENCE_OPERATOR_ADDON = "amazon-sagemaker-hyperpod-inference"
INFERENCE_OPERATOR_NAMESPACE = "hyperpod-inference-system"
INFERENCE_OPERATOR_SERVICE_ACCOUNT = "hyperpod-inference-controller-manager"
METRICS_SERVER_ADDON = "metrics-server"
# Add-ons the inference add-on needs ACTIVE that the dependencies stage installs (the others are features).
INFERENCE_STAGE3_ADDONS = (S3_CSI_ADDON, METRICS_SERVER_ADDON)


def inference_operator_feature(
    iam: IamGateway, eks: EksGateway, buckets: BucketGateway, pins: FeaturePins, boundary_arn: str
) -> AddonFeature:
    role = AddonRole(
        iam,
        inference_operator_role_name,
        (INFERENCE_OPERATOR_POLICY,),
        boundary_arn=boundary_arn,
        irsa=INFERENCE_OPERATOR_SERVICE_ACCOUNT,
        namespace=INFERENCE_OPERATOR_NAMESPACE,
        service=SAGEMAKER_PRINCIPAL,
    )
    return AddonFeature(
        eks,
        Feature.INFERENCE_OPERATOR,
        INFERENCE_OPERATOR_ADDON,
        pins,
        precondition=partial(_require_prerequisites, eks),
        role=role,
        bucket=AddonBucket(buckets, inference_tls_bucket_name),
        configure=_configuration,
    )


def _require_prerequisites(eks: EksGateway, facts: ClusterFacts) -> None:
    """The add-on reports to the HyperPod cluster and needs the stage 3 storage and metrics add-ons ACTIVE."""
    facts.require_hyperpod()
    missing = [
        addon
        for addon in INFERENCE_STAGE3_ADDONS
        if (found := eks.find_addon(facts.eks_name, addon)) is None or found.status != "ACTIVE"
    ]
    if missing:
        raise ClusterNotReadyError(
            f"The inference operator needs the add-ons {', '.join(missing)} ACTIVE; run or resume the "
            f"dependencies stage (POST /clusters/{facts.cluster_tag}/dependencies) first."
        )


def _configuration(facts: ClusterFacts, role_arn: str | None, bucket: str | None) -> dict[str, Any]:
    """configurationValues of the inference add-on: its execution role, TLS bucket and HyperPod cluster."""
    return {
        "executionRoleArn": role_arn,
        "tlsCertificateS3Bucket": bucket,
        "hyperpodClusterArn": facts.require_hyperpod().arn,
    }
