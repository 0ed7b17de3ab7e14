"""The reviewed image table (`images.json`): every image the control plane applies, and the registry each Region
pulls it from. An AWS-owned registry lists a host per Region (an ECR account serves one Region, or a few); a public
registry has one host for every Region. Which Regions need which images is the callers' business."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

IMAGES_FILE = Path(__file__).resolve().parent / "images.json"


@dataclass(frozen=True)
class Registry:
    """Where a registry is reached: its host in each Region it serves, or its one host for every Region."""

    hosts: dict[str, str]
    host: str | None = None

    def host_in(self, region: str) -> str | None:
        return self.host or self.hosts.get(region)


@dataclass(frozen=True)
class Image:
    registry: str
    repository: str
    tag: str


@dataclass(frozen=True)
class ImageTable:
    registries: dict[str, Registry]
    images: dict[str, Image]

    def uri(self, name: str, region: str) -> str | None:
        """`<registry host>/<repository>:<tag>` as nodes in `region` pull the image; None where its registry does
        not serve the Region."""
        image = self.images[name]
        host = self.registries[image.registry].host_in(region)
        return f"{host}/{image.repository}:{image.tag}" if host else None

    def regions(self, name: str) -> frozenset[str] | None:
        """The Regions whose nodes can pull the image (None: every Region, from a public registry)."""
        registry = self.registries[self.images[name].registry]
        return None if registry.host else frozenset(registry.hosts)


@cache
def image_table() -> ImageTable:
    data = json.loads(IMAGES_FILE.read_text())
    return ImageTable(
        registries={
            name: Registry(hosts=dict(entry.get("hosts", {})), host=entry.get("host"))
            for name, entry in data["registries"].items()
        },
        images={
            name: Image(registry=entry["registry"], repository=entry["repository"], tag=entry["tag"])
            for name, entry in data["images"].items()
        },
    )
