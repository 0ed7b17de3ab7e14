"""Reviewed, versioned configuration shipped with the code (the dependencies stage's pins of add-ons and manifests,
the image table). A feature pins what it installs in its own declaration (`core.features.catalog`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from controlplane.config.images import ImageTable, image_table

CONFIG_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class ManifestPin:
    """A manifest file and the image it runs, if any: the image's name in the image table (`images.json`)."""

    file: str
    image: str | None = None


@dataclass(frozen=True)
class DependencyPins:
    addons: dict[str, str]
    manifests: dict[str, ManifestPin]
    images: ImageTable


@cache
def cluster_dependencies() -> DependencyPins:
    data = json.loads((CONFIG_DIR / "cluster-dependencies.json").read_text())
    return DependencyPins(
        addons=dict(data["addons"]),
        manifests={name: ManifestPin(**pin) for name, pin in data["manifests"].items()},
        images=image_table(),
    )
