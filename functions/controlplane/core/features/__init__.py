"""The Advanced Features context, and its declaration: which features exist, what each needs, in which order.

`CATALOG` is the one place that says it; enabling runs in its order, disabling in reverse. The modules:
- `panel`: the features panel (`FeaturePanelService`: view, plan, update), built on `diff` (the explicit
  diff of a PATCH against live state) and `rules` (the dependency rules between features);
- `steps`: the workflow's entry points (`FeatureSteps`: ensure, remove, delete identities);
- one module per feature (`cert_manager`, `fsx_csi_driver`, `kuberay_operator`, `tiered_storage`,
  `training_operator`, `observability`, `inference_operator`, `karpenter`): its live state (probe), how it is
  ensured and how it is removed;
- shared building blocks: `facts` (what every feature reads first, and the shape of a feature), `addon`
  (a feature that is an EKS add-on with its IAM role and bucket), `manifest` (a bundle of Kubernetes objects),
  `job_identity` (the training jobs' role, ServiceAccount and pod identity association, which the training
  operator builds beside its add-on).
Deterministic names (roles, policies, buckets, tags, labels) are in `core.naming`.
"""

from __future__ import annotations

from dataclasses import dataclass

from controlplane.models.features import Feature


@dataclass(frozen=True)
class Kept:
    """A resource the feature uses but disabling keeps, and why (the disable plan says so)."""

    resource: str
    reason: str


@dataclass(frozen=True)
class FeatureSpec:
    feature: Feature
    summary: str
    requires: tuple[Feature, ...] = ()
    needs_hyperpod: bool = False
    kept: tuple[Kept, ...] = ()


# In dependency order: enabling runs in this order, disabling in reverse.
CATALOG: dict[Feature, FeatureSpec] = {
    spec.feature: spec
    for spec in (
        FeatureSpec(Feature.CERT_MANAGER, "EKS add-on cert-manager"),
        FeatureSpec(
            Feature.FSX_CSI_DRIVER,
            "IAM role (web identity, kube-system/fsx-csi-controller-sa) and EKS add-on aws-fsx-csi-driver",
        ),
        FeatureSpec(
            Feature.KUBERAY_OPERATOR,
            "KubeRay operator: namespace kuberay-operator, ray.io CRDs, RBAC and the operator Deployment",
        ),
        FeatureSpec(
            Feature.TIERED_STORAGE,
            "TieredStorageConfig on the HyperPod cluster; IAM policy and role (web identity through the EKS "
            "cluster's OIDC provider), ServiceAccount default/tiered-storage-sa annotated with the role",
            needs_hyperpod=True,
            kept=(
                Kept(
                    "IAM OIDC provider of the EKS cluster",
                    "the dependencies stage created it and other IRSA roles (S3 and FSx CSI drivers, inference "
                    "operator) trust it; it is deleted only if this feature created it",
                ),
            ),
        ),
        FeatureSpec(
            Feature.TRAINING_OPERATOR,
            "EKS add-on amazon-sagemaker-hyperpod-training-operator (pod identity from the HyperPod stage); the "
            "training jobs' IAM role (pod identity, MLflow logging only), ServiceAccount instantstart-jobs in the job "
            "namespace and their association",
            requires=(Feature.CERT_MANAGER,),
            needs_hyperpod=True,
        ),
        FeatureSpec(
            Feature.OBSERVABILITY,
            "Amazon Managed Service for Prometheus workspace <deployment>-<tag>-observability, IAM role (pod "
            "identity) and EKS add-on amazon-sagemaker-hyperpod-observability writing to the workspace; Grafana is "
            "yours to bring (the workspace endpoint as its Prometheus data source)",
            needs_hyperpod=True,
        ),
        FeatureSpec(
            Feature.INFERENCE_OPERATOR,
            "IAM role (web identity, hyperpod-inference-system/hyperpod-inference-controller-manager), TLS "
            "certificate bucket hyperpod-tls-<tag>-…, EKS add-on amazon-sagemaker-hyperpod-inference configured "
            "with both",
            requires=(Feature.CERT_MANAGER, Feature.FSX_CSI_DRIVER),
            needs_hyperpod=True,
        ),
        FeatureSpec(
            Feature.KARPENTER,
            "IAM role trusted by HyperPod (BatchAdd/BatchDeleteClusterNodes on the cluster), AutoScaling Karpenter "
            "with that ClusterRole, HyperpodNodeClass and NodePool over the chosen instance groups",
            needs_hyperpod=True,
        ),
    )
}
ENABLE_ORDER = tuple(CATALOG)
DISABLE_ORDER = tuple(reversed(ENABLE_ORDER))
