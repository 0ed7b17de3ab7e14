"""The features, one module each, named for its feature (`fsxCsiDriver` → `fsx_csi_driver`): each declares itself
once in `FEATURE` (`core.features.declaration`) and says how it is ensured and removed. A module imports no other
feature's; what features share is in `core.features` (`addon`, `manifest`, `job_identity`, `facts`).

`CATALOG` collects the declarations in the order `Feature` lists the features (dependency order); a feature without
its module, or a module declaring another feature, fails here, on import.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module

from controlplane.core.features.declaration import FeatureDeclaration
from controlplane.models.features import Feature


def _declaration(feature: Feature) -> FeatureDeclaration:
    declared: FeatureDeclaration = import_module(f"{__name__}.{feature.key}").FEATURE
    if declared.feature is not feature:
        raise LookupError(f"{__name__}.{feature.key} declares {declared.feature.value}, not {feature.value}.")
    return declared


CATALOG: dict[Feature, FeatureDeclaration] = {feature: _declaration(feature) for feature in Feature}


def addon_pins(dependency_addons: Mapping[str, str]) -> dict[str, str]:
    """The pin of every add-on the dependencies stage (`dependency_addons`) or a feature installs, by add-on."""
    declared = [spec.addon for spec in CATALOG.values() if spec.addon is not None]
    return {**dependency_addons, **{addon.name: addon.version for addon in declared if addon.version is not None}}
