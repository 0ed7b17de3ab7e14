"""Renders the project's versioned Kubernetes manifests (YAML files with `${placeholders}`) into objects."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

MANIFESTS_DIR = Path(__file__).resolve().parents[2] / "manifests"


def render(bundle: str, file: str, values: dict[str, str]) -> list[dict[str, Any]]:
    """The objects of `manifests/<bundle>/<file>` with every `${name}` replaced; unknown names are an error."""
    import yaml  # only the steps that apply manifests pay for it

    text = string.Template((MANIFESTS_DIR / bundle / file).read_text()).substitute(values)
    return [document for document in yaml.safe_load_all(text) if document]
