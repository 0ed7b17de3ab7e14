"""Derives the CRD data files beside this module from their published sources (a maintainer's tool: needs the sources
on disk, never runs in tests or the sandbox).

    python -m sandbox.k8s.crds.derive crd <CRD YAML file> <source> [v1,...]  # a published CRD: (these of) its versions
    python -m sandbox.k8s.crds.derive hyperpod-pytorch-job <wheel> <source>   # the HyperPod SDK's pydantic models

A derived file is a CustomResourceDefinition that keeps what the API server enforces (names, scope, each served
version's structural schema and subresources) and drops what it does not (descriptions, examples, conversion
webhooks); `metadata.annotations["instantstart.aws/derived-from"]` names the source. The HyperPodPyTorchJob CRD is
not published: the HyperPod SDK (`sagemaker-hyperpod` on PyPI) ships pydantic models generated from it, read here
from the wheel's file (the SDK itself does not install beside our pins) and turned back into a structural schema.
"""

from __future__ import annotations

import json
import sys
import types
import zipfile
from pathlib import Path
from typing import Any

import yaml

JsonObject = dict[str, Any]
HERE = Path(__file__).resolve().parent
SOURCE_ANNOTATION = "instantstart.aws/derived-from"
_DROPPED = frozenset({"description", "example", "examples", "title", "default", "$comment"})
_PYTORCH_JOB_MODULE = "sagemaker/hyperpod/training/config/hyperpod_pytorch_job_unified_config.py"
_METADATA_MODULE = "sagemaker/hyperpod/common/config/metadata.py"


def from_crd(crd: JsonObject, source: str, only: set[str] | None = None) -> JsonObject:
    """A published CRD reduced to what the API server enforces for its served versions (those in `only`, if given)."""
    spec = crd["spec"]
    versions = [
        {
            "name": version["name"],
            "served": True,
            "storage": bool(version.get("storage")),
            "schema": {"openAPIV3Schema": _stripped(version["schema"]["openAPIV3Schema"])},
            **({"subresources": version["subresources"]} if version.get("subresources") else {}),
        }
        for version in spec["versions"]
        if version.get("served", True) and (only is None or version["name"] in only)
    ]
    return _crd(crd["metadata"]["name"], spec["group"], spec["names"], spec["scope"], versions, source)


def from_pytorch_job_wheel(wheel: Path, source: str) -> JsonObject:
    """The HyperPodPyTorchJob CRD (sagemaker.amazonaws.com/v1) from the HyperPod SDK's pydantic models in `wheel`."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = _module("hyperpod_metadata", archive.read(_METADATA_MODULE).decode())
        config = _module("hyperpod_pytorch_job", archive.read(_PYTORCH_JOB_MODULE).decode())
    json_schema = config._HyperPodPytorchJob.model_json_schema(by_alias=False)
    definitions = json_schema.pop("$defs", {})
    definitions["Metadata"] = metadata.Metadata.model_json_schema(by_alias=False)
    definitions["Metadata"].pop("required", None)  # a pod template's metadata needs no name
    spec = _structural(json_schema, definitions)
    root = {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec,
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        },
    }
    names = {
        "kind": "HyperPodPyTorchJob",
        "listKind": "HyperPodPyTorchJobList",
        "plural": "hyperpodpytorchjobs",
        "singular": "hyperpodpytorchjob",
    }
    version = {
        "name": "v1",
        "served": True,
        "storage": True,
        "schema": {"openAPIV3Schema": root},
        "subresources": {"status": {}},
    }
    return _crd("hyperpodpytorchjobs.sagemaker.amazonaws.com", "sagemaker.amazonaws.com", names, "Namespaced",
                [version], source)  # fmt: skip


def _crd(name: str, group: str, names: JsonObject, scope: str, versions: list[JsonObject], source: str) -> JsonObject:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": name, "annotations": {SOURCE_ANNOTATION: source}},
        "spec": {"group": group, "names": names, "scope": scope, "versions": versions},
    }


def _stripped(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _stripped(value) for key, value in node.items() if key not in _DROPPED}
    if isinstance(node, list):
        return [_stripped(item) for item in node]
    return node


def _structural(node: JsonObject, definitions: JsonObject) -> JsonObject:
    """A pydantic JSON schema as a structural schema: references inlined, `Optional` unwrapped, objects closed."""
    if "$ref" in node:
        return _structural(definitions[node["$ref"].rsplit("/", 1)[-1]], definitions)
    alternatives = [option for option in node.get("anyOf") or [] if option.get("type") != "null"]
    if len(alternatives) == 1:
        return _structural(alternatives[0], definitions)
    if alternatives:  # a union of types: the API server would need int-or-string or an open schema
        return {"x-kubernetes-preserve-unknown-fields": True}
    kind = node.get("type")
    if kind == "array":
        return {"type": "array", "items": _structural(node.get("items") or {}, definitions)}
    if kind == "object" or "properties" in node:
        result: JsonObject = {"type": "object"}
        if node.get("properties"):
            result["properties"] = {k: _structural(v, definitions) for k, v in node["properties"].items()}
        if node.get("required"):
            result["required"] = list(node["required"])
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            result["additionalProperties"] = _structural(extra, definitions)
        elif extra is True or (extra is None and not node.get("properties")):  # a dict of anything
            result["x-kubernetes-preserve-unknown-fields"] = True
        return result
    if kind in ("string", "integer", "number", "boolean"):
        return {"type": kind, **({"enum": node["enum"]} if "enum" in node else {})}
    return {"x-kubernetes-preserve-unknown-fields": True}


def _module(name: str, source: str) -> types.ModuleType:
    """A pydantic-only module of the SDK, loaded from its source text."""
    module = types.ModuleType(name)
    sys.modules[name] = module  # pydantic resolves the module's annotations through sys.modules
    exec(compile(source, name, "exec"), module.__dict__)  # the pinned SDK's own model definitions
    return module


def main(arguments: list[str]) -> None:
    what, path, source, *versions = arguments
    if what == "crd":
        only = set(versions[0].split(",")) if versions else None
        derived = from_crd(yaml.safe_load(Path(path).read_text()), source, only)
    elif what == "hyperpod-pytorch-job":
        derived = from_pytorch_job_wheel(Path(path), source)
    else:
        raise SystemExit(f"unknown source kind {what!r}: crd or hyperpod-pytorch-job")
    target = HERE / f"{derived['metadata']['name']}.json"
    target.write_text(json.dumps(derived, separators=(",", ":"), sort_keys=True) + "\n")
    print(target)


if __name__ == "__main__":
    main(sys.argv[1:])
