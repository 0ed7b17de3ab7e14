"""Every Kubernetes object the control plane writes validates against its kind's published schema, and the schemas the
product checks jobs and endpoints with agree with the published ones on every field the product renders.

Published schemas: Kubernetes' own for the built-in kinds (`kubernetes-validate`, strict, at every release a cluster
may be created at); the derived CRDs of `sandbox.k8s.crds` for HyperPodPyTorchJob (the HyperPod SDK's models), the
inference kinds (the inference operator's CRDs), RayJob and RayCluster (KubeRay's, at the pinned operator version) and
NodePool (Karpenter's). HyperpodNodeClass has no published schema: it is checked against the shape AWS documents.
"""

from __future__ import annotations

import copy
from typing import Any, get_args

import jsonschema
import kubernetes_validate
import pytest
from pydantic import ValidationError

from controlplane.core.training.recipes import shipped_recipes
from controlplane.core.training.schema import crd_schema as product_schema
from controlplane.core.training.schema import schema_problems
from controlplane.models.clusters import KubernetesVersion
from controlplane.models.endpoints import HuggingFaceSource
from controlplane.models.training import LogMonitoringRule
from sandbox.k8s.crds import published_crd
from sandbox.k8s.fields import Schema, builtin_schema, crd_schema, unknown_fields
from tests.contract.rendered import rendered_objects, rendered_patches

JsonObject = dict[str, Any]
OBJECTS = rendered_objects()
PATCHES = rendered_patches()
PUBLISHED_CRDS = (
    "hyperpodpytorchjobs.sagemaker.amazonaws.com",
    "inferenceendpointconfigs.inference.sagemaker.aws.amazon.com",
    "jumpstartmodels.inference.sagemaker.aws.amazon.com",
    "rayjobs.ray.io",
    "rayclusters.ray.io",
    "nodepools.karpenter.sh",
)
PUBLISHED = {
    (crd["spec"]["group"], crd["spec"]["names"]["kind"]): crd for crd in (published_crd(n) for n in PUBLISHED_CRDS)
}
# AWS documents HyperpodNodeClass by example only: `spec.instanceGroups`, the names of at most ten instance groups
# (docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-autoscaling-karpenter.html, "MaxItems: 10").
DOCUMENTED_NODE_CLASS = {
    "type": "object",
    "required": ["spec"],
    "properties": {
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "required": ["instanceGroups"],
            "properties": {
                "instanceGroups": {"type": "array", "minItems": 1, "maxItems": 10, "items": {"type": "string"}}
            },
        }
    },
}
# Each bound of the published schema, and when the product's is at least as tight.
_BOUNDS = {
    "minimum": lambda mine, theirs: mine >= theirs,
    "minLength": lambda mine, theirs: mine >= theirs,
    "minItems": lambda mine, theirs: mine >= theirs,
    "maximum": lambda mine, theirs: mine <= theirs,
    "maxLength": lambda mine, theirs: mine <= theirs,
    "maxItems": lambda mine, theirs: mine <= theirs,
}
# The kinds whose jobs and endpoints the product checks with schemas of its own before it submits them.
PRODUCT_CHECKED = ("HyperPodPyTorchJob", "InferenceEndpointConfig", "JumpStartModel", "RayJob", "RayCluster")


def published_problems(obj: JsonObject) -> list[str]:
    """What the published schema of `obj`'s kind refuses in it, each as `path: problem`."""
    group, _, version = obj["apiVersion"].rpartition("/")
    crd = PUBLISHED.get((group, obj["kind"]))
    if crd is not None:
        schema = crd_schema(crd, version)
        assert schema is not None, f"{crd['metadata']['name']} serves no {version}"
        unknown = [f"{field.decoded()}: unknown field" for field in unknown_fields(copy.deepcopy(obj), schema)]
        return unknown + _schema_errors(obj, schema.node)
    if (group, obj["kind"]) == ("karpenter.sagemaker.amazonaws.com", "HyperpodNodeClass"):
        return _schema_errors(obj, DOCUMENTED_NODE_CLASS)
    problems = []
    for release in get_args(KubernetesVersion):  # every release a cluster may be created at
        try:
            kubernetes_validate.validate(obj, release, strict=True)
        except kubernetes_validate.ValidationError as error:
            problems.append(f"Kubernetes {release}: {error}")
    return problems


# The API server decodes `1.0` as a float, which a field of type integer refuses; JSON Schema would take it.
_StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)


def _schema_errors(obj: JsonObject, schema: JsonObject) -> list[str]:
    errors = _StrictValidator(schema).iter_errors(obj)
    return [f"{'.'.join(str(part) for part in error.absolute_path)}: {error.message}" for error in errors]


@pytest.mark.parametrize("name", OBJECTS)
def test_every_rendered_object_validates_against_its_published_schema(name: str) -> None:
    assert published_problems(OBJECTS[name]) == []


@pytest.mark.parametrize("name", PATCHES)
def test_every_merge_patch_names_only_fields_its_kind_declares(name: str) -> None:
    api_version, kind, patch = PATCHES[name]
    schema = builtin_schema(api_version, kind)

    assert schema is not None
    assert [field.decoded() for field in unknown_fields(copy.deepcopy(patch), schema)] == []


def test_the_rendered_objects_cover_every_kind_the_product_writes_and_every_recipe() -> None:
    kinds = {(obj["apiVersion"], obj["kind"]) for obj in OBJECTS.values()}

    assert kinds == {
        ("v1", "Namespace"),
        ("v1", "ServiceAccount"),
        ("v1", "Service"),
        ("v1", "Secret"),
        ("v1", "PersistentVolume"),
        ("v1", "PersistentVolumeClaim"),
        ("apps/v1", "DaemonSet"),
        ("apps/v1", "Deployment"),
        ("batch/v1", "Job"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole"),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
        ("rbac.authorization.k8s.io/v1", "Role"),
        ("rbac.authorization.k8s.io/v1", "RoleBinding"),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
        ("sagemaker.amazonaws.com/v1", "HyperPodPyTorchJob"),
        ("ray.io/v1", "RayJob"),
        ("ray.io/v1", "RayCluster"),
        ("inference.sagemaker.aws.amazon.com/v1", "InferenceEndpointConfig"),
        ("inference.sagemaker.aws.amazon.com/v1", "JumpStartModel"),
        ("karpenter.sagemaker.amazonaws.com/v1", "HyperpodNodeClass"),
        ("karpenter.sh/v1", "NodePool"),
    }
    assert {name.removeprefix("recipe ") for name in OBJECTS if name.startswith("recipe ")} == set(shipped_recipes())


@pytest.mark.parametrize("name", [name for name, obj in OBJECTS.items() if obj["kind"] in PRODUCT_CHECKED])
def test_the_product_schema_agrees_with_the_published_one_on_every_rendered_field(name: str) -> None:
    obj = OBJECTS[name]
    group, _, version = obj["apiVersion"].rpartition("/")
    published = crd_schema(PUBLISHED[(group, obj["kind"])], version)
    assert published is not None

    disagreements = _disagreements(obj["spec"], _product_node(product_schema(obj["kind"]), "spec"), published,
                                   published.node["properties"]["spec"], ".spec")  # fmt: skip

    assert schema_problems(obj) == []
    assert disagreements == []


def test_a_hugging_face_commit_is_a_full_sha_as_the_inference_crd_requires() -> None:
    published = crd_schema(PUBLISHED[("inference.sagemaker.aws.amazon.com", "InferenceEndpointConfig")], "v1")
    assert published is not None
    endpoint = copy.deepcopy(OBJECTS["endpoint hugging face"])
    endpoint["spec"]["modelSourceConfig"]["huggingFaceModel"]["commitSHA"] = "0123abc"

    with pytest.raises(ValidationError, match="commitSha"):
        HuggingFaceSource(modelId="Qwen/Qwen3-0.6B", commitSha="0123abc")
    assert HuggingFaceSource(modelId="Qwen/Qwen3-0.6B", commitSha="0123456789abcdef0123456789abcdef01234567")
    assert any("does not match" in problem for problem in _schema_errors(endpoint, published.node))
    assert any("does not match" in problem for problem in schema_problems(endpoint))


def test_a_log_metric_threshold_is_an_integer_as_the_job_crd_requires() -> None:
    job = copy.deepcopy(OBJECTS["job everything (plain)"])
    job["spec"]["runPolicy"]["logMonitoringConfiguration"][1]["metricThreshold"] = 99.5

    with pytest.raises(ValidationError, match="metricThreshold"):
        LogMonitoringRule(name="slow", logPattern="tps=(\\d+)", metricThreshold=99.5, operator="lt")
    assert published_problems(job) == [
        "spec.runPolicy.logMonitoringConfiguration.1.metricThreshold: 99.5 is not of type 'integer'"
    ]
    assert schema_problems(job) == [
        ".spec.runPolicy.logMonitoringConfiguration[1].metricThreshold: expected integer, got float"
    ]


def _disagreements(value: Any, mine: JsonObject, published: Schema, theirs: Any, path: str) -> list[str]:
    """Where, along the fields `value` has, the product's schema node says otherwise than the published one."""
    theirs = _published_node(published, theirs)
    found = [f"{path}: {problem}" for problem in _node_disagreements(mine, theirs)]
    if isinstance(value, dict):
        for key, item in value.items():
            child = _product_node(mine, key)
            if child is not None:
                found += _disagreements(
                    item, child, published, _published_child(published, theirs, key), f"{path}.{key}"
                )
    elif isinstance(value, list):
        items = _product_node(mine, None)
        if items is not None:
            for index, item in enumerate(value):
                found += _disagreements(item, items, published, theirs.get("items") or {}, f"{path}[{index}]")
    return found


def _node_disagreements(mine: JsonObject, theirs: JsonObject) -> list[str]:
    """The type, pattern and enum must be the published ones (an enum may be narrower), each bound as tight."""
    problems = []
    if "type" in theirs and "type" in mine and mine["type"] != theirs["type"]:
        problems.append(f"type {mine['type']} where the published schema says {theirs['type']}")
    if "pattern" in theirs and mine.get("pattern") != theirs["pattern"]:
        problems.append(f"pattern {mine.get('pattern')!r} where the published schema says {theirs['pattern']!r}")
    if "enum" in theirs and "enum" in mine and not set(mine["enum"]) <= set(theirs["enum"]):
        problems.append(f"enum {mine['enum']} allows more than the published {theirs['enum']}")
    for bound, tighter in _BOUNDS.items():
        if bound in theirs and not (bound in mine and tighter(mine[bound], theirs[bound])):
            problems.append(f"{bound} {mine.get(bound)} where the published schema says {theirs[bound]}")
    return problems


def _product_node(node: JsonObject, key: str | None) -> JsonObject | None:
    """The product schema's node for a field (`key`) or for the items of an array (None); None where it stops."""
    from controlplane.core.training.schema import _resolved

    node = _resolved(node)
    if key is None:
        return node.get("items")
    if node.get("x-kubernetes-preserve-unknown-fields") and key not in (node.get("properties") or {}):
        return None
    return (node.get("properties") or {}).get(key) or node.get("additionalProperties")


def _published_child(published: Schema, node: JsonObject, key: str) -> JsonObject:
    return (node.get("properties") or {}).get(key) or node.get("additionalProperties") or {}


def _published_node(published: Schema, node: Any) -> JsonObject:
    from sandbox.k8s.fields import _resolved

    resolved = _resolved(node, published)
    return resolved if isinstance(resolved, dict) else {}


MUTATIONS = {
    "a JumpStart version that is not major.minor.patch": (
        "endpoint jumpstart",
        ("spec", "model", "modelVersion"),
        "1.0",
    ),
    "an invocation port above 65535": (
        "endpoint s3",
        ("spec", "worker", "modelInvocationPort", "containerPort"),
        70000,
    ),
    "a model name longer than 63 characters": ("endpoint s3", ("spec", "modelName"), "m" * 64),
    "an L2 cache on another backend": (
        "endpoint fsx",
        ("spec", "kvCacheSpec", "l2CacheSpec", "l2CacheBackend"),
        "disk",
    ),
    "a Hugging Face model without its organization": (
        "endpoint hugging face",
        ("spec", "modelSourceConfig", "huggingFaceModel", "modelId"),
        "gpt2",
    ),
}


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_the_product_check_refuses_what_the_published_schema_refuses(mutation: str) -> None:
    name, path, value = MUTATIONS[mutation]
    obj = copy.deepcopy(OBJECTS[name])
    parent = obj
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value

    assert published_problems(obj) != []
    assert schema_problems(obj) != []
