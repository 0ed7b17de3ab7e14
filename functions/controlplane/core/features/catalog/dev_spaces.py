"""HyperPod spaces: the EKS add-on amazon-sagemaker-spaces, whose controller runs the `workspace.jupyter.org/v1alpha1`
Workspace kind (JupyterLab and Code Editor spaces, `core.spaces`). cert-manager is a dependency rule."""

from __future__ import annotations

from controlplane.core.features.addon import AddonFeature
from controlplane.core.features.declaration import AddonPin, FeatureDeclaration, FeaturePorts
from controlplane.models.features import Feature

SPACES_ADDON = "amazon-sagemaker-spaces"
_PIN = AddonPin(SPACES_ADDON, "v1.0.0-eksbuild.1")


def _build(ports: FeaturePorts) -> AddonFeature:
    return AddonFeature(ports.eks, Feature.DEV_SPACES, SPACES_ADDON, ports.version(_PIN))


FEATURE = FeatureDeclaration(
    Feature.DEV_SPACES,
    "EKS add-on amazon-sagemaker-spaces (the Workspace kind of JupyterLab and Code Editor spaces)",
    _build,
    requires=(Feature.CERT_MANAGER,),
    needs_hyperpod=True,
    addon=_PIN,
)
