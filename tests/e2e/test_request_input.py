"""What a request must be, checked in the order a caller can act on (issue 29, findings 7 and 8): who is calling (401),
whether the path takes the method (405 with `Allow`), whether the caller's role may (403), then the body's media type
(415) and its fields (400), never a 500. Numbers and booleans are JSON's own, never text or each other."""

from __future__ import annotations

import json

import httpx
import pytest

EKS = {"clusterTag": "mediatype", "region": "us-west-2"}
GROUP = {"instanceGroupName": "strict", "instanceType": "ml.g6.4xlarge", "availabilityZone": "us-west-2c"}


def post(running_sandbox, path: str, content_type: str, role: str = "admin", body: object = EKS) -> httpx.Response:
    headers = {"Content-Type": content_type, "Authorization": f"Bearer sandbox-{role}"}
    return httpx.post(
        f"{running_sandbox.base_url}/api{path}", content=json.dumps(body), headers=headers, params={"dryRun": "true"}
    )


@pytest.mark.parametrize(
    "content_type", ["application/merge-patch+json", "application/vnd.api+json", "application/problem+json"]
)
def test_a_json_flavoured_media_type_the_api_does_not_read_is_unsupported_media(running_sandbox, content_type):
    response = post(running_sandbox, "/clusters/eks", content_type)
    assert response.status_code == 415, response.text
    body = response.json()
    assert body["code"] == "UnsupportedMediaType"
    assert "Content-Type: application/json" in body["message"]
    assert content_type in body["message"]


@pytest.mark.parametrize("content_type", ["APPLICATION/JSON", "Application/Json; charset=UTF-8"])
def test_the_json_media_type_is_read_whatever_its_case(running_sandbox, content_type):
    response = post(running_sandbox, "/clusters/eks", content_type)
    assert response.status_code == 200, response.text
    assert response.json()["actions"]


@pytest.mark.parametrize("content_type", ["application/merge-patch+json", "APPLICATION/JSON", "text/plain"])
def test_a_viewer_is_refused_by_role_before_the_body_is_looked_at(running_sandbox, content_type):
    response = post(running_sandbox, "/clusters/eks", content_type, role="viewer", body={"clusterTag": 5})
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "Forbidden"


def test_an_invalid_body_from_a_viewer_is_refused_by_role_not_by_its_fields(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        response = api.post("/clusters/eks", json={"clusterTag": "X", "unknown": True})
    assert response.status_code == 403, response.text


def test_a_request_without_identity_is_refused_before_its_body_is_read(running_sandbox):
    with running_sandbox.client(token=None) as api:
        unreadable = api.post("/clusters/eks", content=b"\xff", headers={"Content-Type": "text/plain"})
        invalid = api.post("/clusters/eks", json={"clusterTag": 5})
    assert (unreadable.status_code, invalid.status_code) == (401, 401)


@pytest.mark.parametrize(
    ("field", "value"),
    [("instanceCount", "1"), ("instanceCount", True), ("instanceCount", 1.5), ("deepHealthChecks", 1)],
)
def test_numbers_and_booleans_must_be_json_numbers_and_booleans(running_sandbox, field, value):
    body = {**GROUP, "instanceCount": 1, field: value}
    with running_sandbox.client() as api:
        response = api.post("/clusters/strictness/instance-groups", params={"dryRun": "true"}, json=body)
    assert response.status_code == 400, response.text
    assert response.json()["details"]["problems"][0]["field"] == field


@pytest.mark.parametrize("value", [0, "false", None])
def test_record_only_of_a_remediation_policy_must_be_a_boolean(running_sandbox, value):
    with running_sandbox.client() as api:
        response = api.put("/clusters/strictness/remediation-policy", json={"action": "notify", "recordOnly": value})
    assert response.status_code == 400, response.text
    assert response.json()["details"]["problems"][0]["field"] == "recordOnly"


def test_a_nested_number_is_strict_too(running_sandbox):
    body = {"fsx": {"storageCapacityGiB": "1200"}}
    with running_sandbox.client() as api:
        response = api.post("/clusters/strictness/storage", params={"dryRun": "true"}, json=body)
    assert response.status_code == 400, response.text
    assert response.json()["details"]["problems"][0]["field"] == "fsx.storageCapacityGiB"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/clusters/strictness/services", "GET"),
        ("DELETE", "/clusters", "GET, POST"),
        ("POST", "/clusters/strictness/status", "GET"),
        ("PUT", "/clusters/strictness/deployments/web", "DELETE, GET, PATCH"),
        ("PUT", "/operations/op-00000000000000000000", "GET"),
    ],
)
def test_a_method_a_known_path_does_not_take_is_not_allowed_and_says_which_are(running_sandbox, method, path, allowed):
    with running_sandbox.client("sandbox-viewer") as api:
        response = api.request(method, path, json={} if method != "DELETE" else None)
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == allowed
    body = response.json()
    assert body["code"] == "MethodNotAllowed"
    assert allowed in body["message"]


def test_an_unknown_path_is_still_route_not_found(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        response = api.put("/clusters/strictness/no-such-thing")
    assert response.status_code == 404
    assert response.json()["code"] == "RouteNotFound"


@pytest.mark.parametrize("token", ["", " "])
def test_an_empty_download_token_is_refused_not_stored_as_a_secret_named_none(running_sandbox, token):
    with running_sandbox.client("sandbox-operator") as api:
        response = api.post("/clusters/strictness/downloads", json={"repoId": "Qwen/Qwen2.5-0.5B", "token": token})
    assert response.status_code == 400, response.text
    assert response.json()["details"]["problems"][0]["field"] == "token"


def test_an_empty_model_server_token_is_refused_too(running_sandbox):
    body = {"name": "gated", "command": "vllm serve meta-llama/Llama-3.2-1B", "gpus": 1, "huggingFaceToken": ""}
    with running_sandbox.client("sandbox-operator") as api:
        response = api.post("/clusters/strictness/deployments", json=body)
    assert response.status_code == 400, response.text
    assert response.json()["details"]["problems"][0]["field"] == "huggingFaceToken"
