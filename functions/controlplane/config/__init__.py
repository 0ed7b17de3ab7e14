"""Reviewed, versioned configuration shipped with the code (pins of add-ons and manifests)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class ManifestPin:
    file: str
    image: str


@dataclass(frozen=True)
class DependencyPins:
    addons: dict[str, str]
    manifests: dict[str, ManifestPin]


@cache
def cluster_dependencies() -> DependencyPins:
    data = json.loads((CONFIG_DIR / "cluster-dependencies.json").read_text())
    return DependencyPins(
        addons=dict(data["addons"]),
        manifests={name: ManifestPin(**pin) for name, pin in data["manifests"].items()},
    )


@dataclass(frozen=True)
class FeaturePins:
    addons: dict[str, str]
    manifests: dict[str, ManifestPin]


@cache
def feature_pins() -> FeaturePins:
    data = json.loads((CONFIG_DIR / "feature-addons.json").read_text())
    return FeaturePins(
        addons={**cluster_dependencies().addons, **data["addons"]},
        manifests={name: ManifestPin(**pin) for name, pin in data["manifests"].items()},
    )
