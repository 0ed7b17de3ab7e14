"""A feature that is a versioned bundle of Kubernetes objects (`ManifestFeature`), applied with server-side apply.

The bundle's objects carry the feature's label (`core.naming.FEATURE_LABEL`); an object of the same name without
it is someone else's and blocks enabling; removal deletes only labelled objects. Not here: which bundles are
features (one module each in `catalog`).
"""

from __future__ import annotations

from typing import Any

from controlplane.config.images import ImageTable
from controlplane.core.features.declaration import Bundle
from controlplane.core.features.facts import ClusterFacts, labelled
from controlplane.core.ports.kubernetes import KubernetesGateway, ManifestRenderer
from controlplane.models.errors import ForeignResourceError, UnsupportedRegionError
from controlplane.models.features import Feature, FeatureChange, FeatureState


class ManifestFeature:
    def __init__(
        self,
        kubernetes: KubernetesGateway,
        render: ManifestRenderer,
        feature: Feature,
        bundle: Bundle,
        images: ImageTable,
    ) -> None:
        self._kubernetes = kubernetes
        self._render = render
        self._feature = feature
        self._bundle = bundle.name
        self._pin = bundle.pin
        self._images = images
        self._rendered: dict[str, list[dict[str, Any]]] = {}

    def _objects(self, region: str) -> list[dict[str, Any]]:
        """The bundle's objects, its image (if it runs one) as nodes in `region` pull it; rendered once per Region."""
        if region not in self._rendered:
            values = {}
            if self._pin.image is not None:
                image = self._images.uri(self._pin.image, region)
                if image is None:
                    raise UnsupportedRegionError(
                        f"Region '{region}' has no registry for {self._pin.image}, which {self._feature.value} runs.",
                        {"region": region, "images": [self._pin.image]},
                    )
                values["image"] = image
            self._rendered[region] = self._render(self._bundle, self._pin.file, values)
        return self._rendered[region]

    def probe(self, facts: ClusterFacts) -> FeatureState:
        present = self._present(facts)
        ours = [name for name, obj in present.items() if labelled(obj, self._feature)]
        complete = len(ours) == len(self._objects(facts.region))
        return FeatureState(
            enabled=complete,
            state="enabled" if complete else "partial" if ours else "disabled",
            resources=ours,
            message=None if len(ours) == len(present) else "Some objects exist that InstantStart did not create.",
        )

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        cluster = facts.require_kubernetes()
        foreign = [name for name, obj in self._present(facts).items() if not labelled(obj, self._feature)]
        if foreign:
            raise ForeignResourceError(
                f"{', '.join(foreign)} already exist without InstantStart's labels; remove them, then resume."
            )
        self._kubernetes.apply(cluster, facts.region, self._objects(facts.region))
        return True

    def remove(self, facts: ClusterFacts) -> bool:
        if facts.kubernetes is None:
            return True
        present = self._present(facts)
        owned = [obj for obj in self._objects(facts.region) if labelled(present.get(_describe(obj)), self._feature)]
        self._kubernetes.delete(facts.kubernetes, facts.region, owned)
        return True

    def _present(self, facts: ClusterFacts) -> dict[str, dict[str, Any]]:
        """The bundle's objects that exist, by description, whoever made them."""
        if facts.kubernetes is None:
            return {}
        found = {}
        for obj in self._objects(facts.region):
            metadata = obj["metadata"]
            live = self._kubernetes.get(
                facts.kubernetes,
                facts.region,
                obj["apiVersion"],
                obj["kind"],
                metadata["name"],
                metadata.get("namespace"),
            )
            if live is not None:
                found[_describe(obj)] = live
        return found


def _describe(obj: dict[str, Any]) -> str:
    metadata = obj["metadata"]
    namespace = metadata.get("namespace")
    return f"{obj['kind']} {namespace + '/' if namespace else ''}{metadata['name']}"
