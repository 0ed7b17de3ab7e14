"""Bad input that once reached a 500, through the sandbox's front door: each is now a 4xx with the error body,
and each refusal of a mutating request is audited."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from controlplane import wiring

JSON = {"Content-Type": "application/json"}
HYPERPOD = {"instanceType": "ml.g6.4xlarge", "instanceCount": 1, "availabilityZone": "us-west-2a"}


def assert_refused(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["code"] == code
    assert body["message"] and body["requestId"]
    return body


def audited(target: str, request_id: str) -> str:
    """The outcome the audit trail recorded for the request."""
    (entry,) = [entry for entry in wiring.audit_log().list_for_target(target) if entry.requestId == request_id]
    return entry.outcome


def test_an_invalid_nested_vpc_cidr_in_the_pipeline_is_refused(running_sandbox):
    body = {"clusterTag": "nestedcidr", "region": "us-west-2", "eks": {"vpcCidr": "8.8.0.0/16"}, "hyperpod": HYPERPOD}
    with running_sandbox.client() as api:
        refused = assert_refused(api.post("/clusters", json=body), 400, "InvalidRequest")
    assert "eks.vpcCidr" in refused["message"]
    assert audited("nestedcidr", refused["requestId"]) == "400"


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", "application/x-www-form-urlencoded"])
def test_a_body_that_is_not_json_is_unsupported_media(running_sandbox, content_type):
    with running_sandbox.client() as api:
        body = '{"clusterTag": "mediatype", "region": "us-west-2"}'
        response = api.post("/clusters/eks", content=body, headers={"Content-Type": content_type})
    refused = assert_refused(response, 415, "UnsupportedMediaType")
    assert audited("mediatype", refused["requestId"]) == "415"


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('{"clusterTag": "bigint", "region": "us-west-2", "vpcCidr": ' + "9" * 5000 + "}", "integer"),
        ("[" * 1000 + "]" * 1000, "nested"),
        ('{"a": ' * 1000 + "1" + "}" * 1000, "nested"),
        ('{"clusterTag": "surrogate\\ud800", "region": "us-west-2"}', "surrogate"),
        ('{"clusterTag": "demo", "region": "us-west-2", "vpcCidr": NaN}', "NaN"),
    ],
)
def test_json_no_field_can_hold_is_refused(running_sandbox, body, problem):
    with running_sandbox.client() as api:
        refused = assert_refused(api.post("/clusters/eks", content=body, headers=JSON), 400, "InvalidRequest")
    assert problem in refused["message"]
    assert audited("/clusters/eks", refused["requestId"]) == "400"


@pytest.mark.parametrize(
    "body",
    [
        {"labels": {"team": "\ud800x"}},
        {"labels": {"\ud800": "a"}},
        {"instanceType": "ml.g6\ud800"},
        {"trainingPlanArn": "arn:\udfff"},
    ],
)
def test_a_lone_surrogate_in_any_string_is_refused(running_sandbox, body):
    content = json.dumps({**HYPERPOD, **body})  # ASCII with \\u escapes: the surrogate travels as JSON allows
    with running_sandbox.client() as api:
        response = api.post("/clusters/lonesurrogate/hyperpod", content=content, headers=JSON)
    refused = assert_refused(response, 400, "InvalidRequest")
    assert audited("lonesurrogate", refused["requestId"]) == "400"


@pytest.mark.parametrize("field", ["instanceCount", "minInstanceCount", "labels", "taints", "deepHealthChecks"])
def test_null_in_an_instance_group_update_is_refused_not_a_silent_no_change(running_sandbox, field):
    with running_sandbox.client() as api:
        response = api.patch("/clusters/nullpatch/instance-groups/gpu", json={field: None})
    refused = assert_refused(response, 400, "InvalidRequest")
    assert f"{field}: Value error, null is not accepted" in refused["message"]
    assert audited("nullpatch", refused["requestId"]) == "400"


def test_a_very_long_cluster_tag_is_refused_and_audited_under_a_shortened_path(running_sandbox):
    path = "/clusters/" + "a" * 3000 + "/hyperpod"
    with running_sandbox.client() as api:
        refused = assert_refused(api.post(path, json=HYPERPOD), 400, "InvalidRequest")
    entries = [e for e in wiring.audit_log().list_for_target(path[:512]) if e.requestId == refused["requestId"]]
    assert [e.outcome for e in entries] == ["400"]


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_very_long_path_is_route_not_found(running_sandbox, method):
    with running_sandbox.client() as api:
        response = api.request(method, "/" + "a" * 5000, json={} if method == "POST" else None)
    assert_refused(response, 404, "RouteNotFound")


def test_a_body_that_is_not_utf8_is_refused_by_the_front_door(running_sandbox):
    with running_sandbox.client() as api:
        response = api.post("/clusters/eks", content=b'{"clusterTag": "\xff\xfe"}', headers=JSON)
    assert_refused(response, 400, "InvalidRequest")


def test_api_responses_keep_the_handlers_headers(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        response = api.get("/clusters")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"


def test_a_local_caller_cannot_act_as_the_mcp_server_for_another_user(running_sandbox):
    admin = json.dumps({"principal": "someone", "source": "cognito", "groups": ["admin"]})
    # The token the sandbox's MCP server once used for every process; now each process makes its own.
    for authorization in ({"Authorization": "Bearer sandbox-mcp-server"}, {}):
        response = httpx.post(
            f"{running_sandbox.base_url}/api/clusters/eks",
            json={"clusterTag": "mcpforged", "region": "us-west-2"},
            headers={**authorization, "X-InstantStart-On-Behalf-Of": admin},
        )
        assert_refused(response, 401, "Unauthenticated")
    assert wiring.audit_log().list_for_target("mcpforged") == []


def test_a_path_with_line_breaks_reaches_the_handler_and_is_refused_with_the_error_body(running_sandbox):
    """Found by the fuzzer: Starlette's `path` convertor stops at a line break, so the sandbox answered a plain-text
    404 of its own instead of the API's JSON error."""
    with running_sandbox.client() as api:
        response = api.post("/clusters/a%0Ab%0Dc/hyperpod", json=HYPERPOD)
    assert response.status_code in (400, 404), response.text
    assert_refused(response, response.status_code, response.json()["code"])


def test_concurrent_requests_each_get_their_own_answer(running_sandbox):
    """Powertools keeps the request in hand on the resolver: two requests at once in the sandbox's one process mixed
    their callers (`KeyError: 'actor'`, a 500). Each request must be answered as if it were alone."""

    def dry_run(index: int) -> httpx.Response:
        body = {"clusterTag": f"concurrent-{index}", "region": "us-west-2"}
        with running_sandbox.client() as api:
            return api.post("/clusters/eks", params={"dryRun": "true"}, json=body)

    with ThreadPoolExecutor(max_workers=8) as pool:
        responses = list(pool.map(dry_run, range(16)))
    assert [response.status_code for response in responses] == [200] * 16, [r.text for r in responses]
