"""The rules a features PATCH must satisfy before anything starts: what a feature builds on, and what the
features need of each other. Dependencies are never resolved by hidden intent: enabling a feature whose
dependency is neither enabled nor enabled in the same request is refused, naming the dependency; disabling a
feature that another feature still needs is refused, naming the dependent. Karpenter's own request checks are in
`core.features.catalog.karpenter`.
"""

from __future__ import annotations

from collections.abc import Iterable

from controlplane.core.features.catalog import CATALOG
from controlplane.core.features.diff import NO_CHANGE
from controlplane.models.errors import ClusterNotReadyError, FeatureDependencyError
from controlplane.models.features import Feature, FeatureChange, FeatureState


def require_hyperpod(cluster_tag: str, touched: Iterable[Feature], has_hyperpod: bool) -> None:
    """A feature that builds on the HyperPod cluster cannot be changed before the cluster exists."""
    for feature in touched:
        if CATALOG[feature].needs_hyperpod and not has_hyperpod:
            raise ClusterNotReadyError(
                f"{feature.value} needs the HyperPod cluster; create it first (POST /clusters/{cluster_tag}"
                "/hyperpod), then change this feature.",
                {"feature": feature.value},
            )


def check_dependencies(live: dict[Feature, FeatureState], changes: dict[Feature, FeatureChange]) -> None:
    """Refuse a request that would leave an enabled feature without one it needs."""

    def on_after(feature: Feature) -> bool:
        change = changes.get(feature, NO_CHANGE).change
        if change in ("enable", "update"):
            return True
        if change == "disable":
            return False
        return live[feature].state != "disabled"

    for feature, change in changes.items():
        if change.change in ("enable", "update"):
            missing = [dependency for dependency in CATALOG[feature].requires if not on_after(dependency)]
            if missing:
                names = ", ".join(dependency.value for dependency in missing)
                example = ", ".join(f'"{dependency.value}": {{"enabled": true}}' for dependency in missing)
                raise FeatureDependencyError(
                    f"{feature.value} needs {names}, which is not enabled. Enable it in the same request "
                    f"(add {example}) or first on its own.",
                    {"feature": feature.value, "missing": [dependency.value for dependency in missing]},
                )
        if change.change == "disable":
            dependents = [
                other
                for other, spec in CATALOG.items()
                if feature in spec.requires and other != feature and on_after(other)
            ]
            if dependents:
                names = ", ".join(dependent.value for dependent in dependents)
                raise FeatureDependencyError(
                    f"{feature.value} cannot be disabled: {names} needs it. Disable {names} first (or in the same "
                    "request), or keep it enabled.",
                    {"feature": feature.value, "dependents": [dependent.value for dependent in dependents]},
                )
