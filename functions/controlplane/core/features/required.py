"""What a request that builds on a feature asks first: the feature's EKS add-on (its catalog declaration's pin) is
ACTIVE on the cluster, else 409 FeatureNotEnabled saying how to enable it. Not here: features that are not an add-on
(their own checks, e.g. the KubeRay operator's Deployment)."""

from __future__ import annotations

from controlplane.core.features.catalog import CATALOG
from controlplane.core.ports.eks import EksGateway
from controlplane.models.errors import FeatureNotEnabledError
from controlplane.models.features import Feature


def require_addon_feature(
    eks: EksGateway, cluster_tag: str, eks_cluster: str, feature: Feature, *, needs: str, addon: str, then: str
) -> None:
    """FeatureNotEnabledError unless `feature`'s add-on is ACTIVE, reading "`needs` the '<feature>' feature (`addon`
    is <state>). Enable it with PATCH …`then`." (details: the feature)."""
    pin = CATALOG[feature].addon
    if pin is None:
        raise LookupError(f"{feature.value} is not an EKS add-on feature.")
    found = eks.find_addon(eks_cluster, pin.name)
    if found is not None and found.status == "ACTIVE":
        return
    state = "not installed" if found is None else f"{found.status}, not ACTIVE"
    raise FeatureNotEnabledError(
        f"{needs} the '{feature.value}' feature ({addon} is {state}). Enable it with PATCH "
        f'/clusters/{cluster_tag}/features {{"{feature.value}": {{"enabled": true}}}}{then}.',
        {"feature": feature.value},
    )
