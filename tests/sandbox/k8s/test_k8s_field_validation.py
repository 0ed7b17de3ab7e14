"""The emulated API server refuses, drops or warns about fields a written kind's schema does not declare, as the real
one does: a create or merge patch follows `fieldValidation`, server-side apply refuses them always."""

from collections.abc import Iterator
from typing import Any

import pytest
from botocore.credentials import Credentials
from starlette.testclient import TestClient

from controlplane.adapters.k8s.client import bearer_token
from sandbox.k8s.emulator import KubernetesEmulator
from sandbox.k8s.http import asgi_app
from sandbox.k8s.inference import InferenceOperatorSimulation
from sandbox.k8s.spaces import SpacesSimulation
from sandbox.k8s.training import TrainingOperatorSimulation

CLUSTER = "strict"
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"


class NoEndpoints:
    """The inference operator's SageMaker side, unused while it only serves its kinds."""

    def register(self, endpoint: str) -> None:
        raise AssertionError(f"no endpoint is deployed here, yet {endpoint} was registered")

    def deregister(self, endpoint: str) -> None:
        raise AssertionError(f"no endpoint is deployed here, yet {endpoint} was deregistered")


@pytest.fixture
def emulator() -> KubernetesEmulator:
    return KubernetesEmulator()


@pytest.fixture
def api(emulator: KubernetesEmulator) -> Iterator[TestClient]:
    token = bearer_token(CLUSTER, "us-west-2", Credentials("AKIDEXAMPLE", "secret"))
    with TestClient(asgi_app(emulator), base_url=f"http://k8s/{CLUSTER}") as client:
        client.headers["Authorization"] = f"Bearer {token}"
        yield client


def deployment(name: str = "web", **container: Any) -> dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "main", "image": "nginx", **container}]},
            },
        },
    }


def widget_crd() -> dict[str, Any]:
    """A CRD declaring `spec.size` and an open `spec.config`, as a structural schema does."""
    spec = {
        "type": "object",
        "properties": {
            "size": {"type": "integer"},
            "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        },
    }
    version = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {"spec": spec}}}}  # fmt: skip
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [version],
        },
    }


def widget(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


def test_a_strict_create_with_an_unknown_field_is_refused_naming_it(api: TestClient) -> None:
    response = api.post(DEPLOYMENTS, params={"fieldValidation": "Strict"}, json=deployment(imagePullPolcy="Always"))

    assert response.status_code == 400
    assert response.json()["reason"] == "BadRequest"
    assert response.json()["message"] == (
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
        'unknown field "spec.template.spec.containers[0].imagePullPolcy"'
    )
    assert api.get(f"{DEPLOYMENTS}/web").status_code == 404


def test_a_create_without_a_directive_drops_the_unknown_field_with_a_warning(api: TestClient) -> None:
    response = api.post(DEPLOYMENTS, json=deployment(imagePullPolcy="Always"))

    assert response.status_code == 201
    assert response.headers.get_list("warning") == [
        '299 - "unknown field \\"spec.template.spec.containers[0].imagePullPolcy\\""'
    ]
    stored = api.get(f"{DEPLOYMENTS}/web").json()
    assert stored["spec"]["template"]["spec"]["containers"] == [{"name": "main", "image": "nginx"}]


def test_an_ignoring_create_drops_the_unknown_field_silently(api: TestClient) -> None:
    response = api.post(DEPLOYMENTS, params={"fieldValidation": "Ignore"}, json={**deployment(), "extra": 1})

    assert response.status_code == 201
    assert "warning" not in response.headers
    assert "extra" not in api.get(f"{DEPLOYMENTS}/web").json()


def test_a_strict_create_with_only_declared_fields_succeeds(api: TestClient) -> None:
    response = api.post(DEPLOYMENTS, params={"fieldValidation": "Strict"}, json=deployment(imagePullPolicy="Always"))

    assert response.status_code == 201
    assert "warning" not in response.headers


def test_a_strict_merge_patch_with_an_unknown_field_is_refused(api: TestClient) -> None:
    api.post(DEPLOYMENTS, json=deployment())

    response = api.patch(
        f"{DEPLOYMENTS}/web",
        params={"fieldValidation": "Strict"},
        headers={"Content-Type": MERGE},
        json={"spec": {"replica": 2}},
    )

    assert response.status_code == 400
    assert response.json()["message"] == 'strict decoding error: unknown field "spec.replica"'


def test_server_side_apply_refuses_an_unknown_field_whatever_the_directive(api: TestClient) -> None:
    for directive in ({}, {"fieldValidation": "Ignore"}):
        response = api.patch(
            f"{DEPLOYMENTS}/web",
            params={"fieldManager": "instantstart", **directive},
            headers={"Content-Type": APPLY},
            json=deployment(imagePullPolcy="Always"),
        )

        assert response.status_code == 500
        assert "reason" not in response.json()
        assert response.json()["message"] == (
            "failed to create typed patch object (default/web; apps/v1, Kind=Deployment): "
            '.spec.template.spec.containers[name="main"].imagePullPolcy: field not declared in schema'
        )
    assert api.get(f"{DEPLOYMENTS}/web").status_code == 404


def test_a_custom_resource_is_checked_against_its_crd_schema_keeping_what_it_preserves(api: TestClient) -> None:
    api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=widget_crd())

    refused = api.post(WIDGETS, params={"fieldValidation": "Strict"}, json=widget({"size": 1, "colour": "red"}))
    kept = api.post(WIDGETS, params={"fieldValidation": "Strict"}, json=widget({"size": 1, "config": {"any": 1}}))

    assert refused.status_code == 400
    assert refused.json()["message"].endswith('strict decoding error: unknown field "spec.colour"')
    assert kept.status_code == 201
    assert api.get(f"{WIDGETS}/w").json()["spec"] == {"size": 1, "config": {"any": 1}}


def test_a_custom_resource_metadata_is_checked_as_object_meta(api: TestClient) -> None:
    api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=widget_crd())
    body = widget({"size": 1})
    body["metadata"]["label"] = {"a": "b"}

    response = api.post(WIDGETS, params={"fieldValidation": "Strict"}, json=body)

    assert response.status_code == 400
    assert response.json()["message"].endswith('unknown field "metadata.label"')


def test_a_crd_with_an_open_schema_keeps_every_field(api: TestClient) -> None:
    crd = widget_crd()
    crd["spec"]["versions"][0]["schema"] = {
        "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    }

    api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd)
    response = api.post(WIDGETS, params={"fieldValidation": "Strict"}, json=widget({"anything": True}))

    assert response.status_code == 201


def test_the_simulated_training_operator_serves_the_published_hyperpod_pytorch_job_schema(
    emulator: KubernetesEmulator, api: TestClient
) -> None:
    TrainingOperatorSimulation(emulator, seconds_per_line=0).serve(CLUSTER)
    job = {
        "apiVersion": "sagemaker.amazonaws.com/v1",
        "kind": "HyperPodPyTorchJob",
        "metadata": {"name": "train"},
        "spec": {"replicaSpecs": [{"name": "pods", "replicas": 1}], "runPolicy": {"restartPolicy": {"maxRestarts": 3}}},
    }

    response = api.post(
        "/apis/sagemaker.amazonaws.com/v1/namespaces/default/hyperpodpytorchjobs",
        params={"fieldValidation": "Strict"},
        json=job,
    )

    assert response.status_code == 400
    assert response.json()["message"].endswith('unknown field "spec.runPolicy.restartPolicy.maxRestarts"')


def test_the_simulated_inference_operator_serves_the_published_endpoint_schemas(
    emulator: KubernetesEmulator, api: TestClient
) -> None:
    InferenceOperatorSimulation(emulator, NoEndpoints(), seconds_to_load=0).serve(CLUSTER)
    model = {
        "apiVersion": "inference.sagemaker.aws.amazon.com/v1",
        "kind": "JumpStartModel",
        "metadata": {"name": "m"},
        "spec": {
            "model": {"modelId": "x", "acceptEula": True, "eula": True},
            "server": {"instanceType": "ml.g5.xlarge"},
        },
    }

    response = api.post(
        "/apis/inference.sagemaker.aws.amazon.com/v1/namespaces/default/jumpstartmodels",
        params={"fieldValidation": "Strict"},
        json=model,
    )

    assert response.status_code == 400
    assert response.json()["message"].endswith('unknown field "spec.model.eula"')


def test_a_custom_resource_whose_value_its_crd_refuses_is_invalid(api: TestClient) -> None:
    api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=widget_crd())

    response = api.post(WIDGETS, json=widget({"size": 1.0}))

    assert response.status_code == 422
    assert response.json()["reason"] == "Invalid"
    assert response.json()["message"] == (
        'Widget.example.com "w" is invalid: spec.size: Invalid value: "number": spec.size in body must be of type '
        'integer: "number"'
    )
    assert response.json()["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: "number": spec.size in body must be of type integer: "number"',
            "field": "spec.size",
        }
    ]


def test_a_merge_patch_that_makes_a_custom_resource_invalid_is_refused(api: TestClient) -> None:
    api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=widget_crd())
    api.post(WIDGETS, json=widget({"size": 1}))

    response = api.patch(f"{WIDGETS}/w", headers={"Content-Type": MERGE}, json={"spec": {"size": "big"}})

    assert response.status_code == 422
    assert api.get(f"{WIDGETS}/w").json()["spec"] == {"size": 1}


def test_a_short_hugging_face_commit_is_refused_by_the_published_inference_crd(
    emulator: KubernetesEmulator, api: TestClient
) -> None:
    InferenceOperatorSimulation(emulator, NoEndpoints(), seconds_to_load=0).serve(CLUSTER)
    source = {
        "modelSourceType": "huggingface",
        "huggingFaceModel": {"modelId": "Qwen/Qwen3-0.6B", "commitSHA": "0123abc"},
    }
    worker = {
        "image": "vllm",
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "modelInvocationPort": {"containerPort": 8080},
        "modelVolumeMount": {"name": "model-weights"},
    }
    endpoint = {
        "apiVersion": "inference.sagemaker.aws.amazon.com/v1",
        "kind": "InferenceEndpointConfig",
        "metadata": {"name": "chat"},
        "spec": {"modelName": "chat", "instanceType": "ml.g5.xlarge", "modelSourceConfig": source, "worker": worker},
    }

    response = api.post(
        "/apis/inference.sagemaker.aws.amazon.com/v1/namespaces/default/inferenceendpointconfigs", json=endpoint
    )

    assert response.status_code == 422
    assert response.json()["details"]["causes"][0]["field"] == "spec.modelSourceConfig.huggingFaceModel.commitSHA"
    assert "should match '^[0-9a-f]{40}$'" in response.json()["message"]


def test_the_simulated_spaces_controller_serves_the_published_workspace_schema_under_server_side_apply(
    emulator: KubernetesEmulator, api: TestClient
) -> None:
    SpacesSimulation(emulator, seconds_to_start=0).serve(CLUSTER)
    workspace = {
        "apiVersion": "workspace.jupyter.org/v1alpha1",
        "kind": "Workspace",
        "metadata": {"name": "lab"},
        "spec": {
            "displayName": "lab",
            "desiredStatus": "Running",
            "volumes": [{"name": "s3", "persistentVolumeClaimName": "s3-claim", "mountPath": "/s3", "readOnly": True}],
        },
    }

    response = api.patch(
        "/apis/workspace.jupyter.org/v1alpha1/namespaces/default/workspaces/lab",
        params={"fieldManager": "instantstart", "fieldValidation": "Strict"},
        headers={"Content-Type": APPLY},
        json=workspace,
    )

    assert response.status_code == 500
    assert response.json()["message"].endswith(".spec.volumes[0].readOnly: field not declared in schema")


def test_the_published_workspace_schema_refuses_a_desired_status_it_does_not_know(
    emulator: KubernetesEmulator, api: TestClient
) -> None:
    SpacesSimulation(emulator, seconds_to_start=0).serve(CLUSTER)
    workspace = {
        "apiVersion": "workspace.jupyter.org/v1alpha1",
        "kind": "Workspace",
        "metadata": {"name": "lab"},
        "spec": {"displayName": "lab", "desiredStatus": "Paused"},
    }

    response = api.post(
        "/apis/workspace.jupyter.org/v1alpha1/namespaces/default/workspaces",
        params={"fieldValidation": "Strict"},
        json=workspace,
    )

    assert response.status_code == 422
