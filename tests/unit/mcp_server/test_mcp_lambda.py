"""The remote MCP server as Lambda runs it: API Gateway events in, the official MCP client on the other side.

API Gateway is played by an httpx2 transport that turns each request into a REST proxy event for the
function; the REST API behind it is a fake on httpx's MockTransport serving the real OpenAPI document.
Tokens are signed here with a freshly generated RSA key whose public half is the pool's JWKS.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import httpx2
import jwt
import pytest
from botocore.credentials import ReadOnlyCredentials
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from api.app import openapi_document
from mcp_server import server as server_module
from mcp_server.auth import CognitoTokenVerifier, VerifiedUser
from mcp_server.client import ON_BEHALF_OF, ApiClient
from mcp_server.lambda_handler import LAMBDA_MAX_WAIT_SECONDS, LambdaAsgi, build_app
from mcp_server.sigv4 import SigV4
from mcp_server.tools import MAX_WAIT_SECONDS

HOST = "abc123.execute-api.us-west-2.amazonaws.com"
STAGE = "v1"
API_URL = f"https://{HOST}/{STAGE}/iam"
ISSUER = "https://cognito-idp.us-west-2.amazonaws.com/us-west-2_Pool"
CLIENT_ID = "mcp-client-id"
KID = "key-1"
CALLER = "arn:aws:sts::123456789012:assumed-role/Developer/alice"
CREDENTIALS = ReadOnlyCredentials("AKIDEXAMPLE", "example-secret", "example-session-token")


@pytest.fixture(scope="module")
def signing_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def jwks(signing_key: rsa.RSAPrivateKey) -> dict[str, Any]:
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(signing_key.public_key()))
    return {"keys": [{**public, "kid": KID, "alg": "RS256", "use": "sig"}]}


def token(key: rsa.RSAPrivateKey, **overrides: Any) -> str:
    now = int(time.time())
    claims = {
        "sub": "0f1e2d3c",
        "username": "bob",
        "cognito:groups": ["viewer"],
        "iss": ISSUER,
        "client_id": CLIENT_ID,
        "token_use": "access",
        "scope": "openid profile",
        "iat": now,
        "exp": now + 3600,
        **overrides,
    }
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": KID})


def running_operation(operation_id: str) -> dict[str, Any]:
    """An OperationView (the tool's output schema) still running."""
    return {
        "operationId": operation_id,
        "kind": "create_eks_cluster",
        "target": "demo",
        "incarnation": "inc-demo",
        "status": "RUNNING",
        "stages": [],
        "actor": "alice",
        "createdAt": "2025-01-01T00:00:00Z",
        "updatedAt": "2025-01-01T00:00:00Z",
        "attempt": 1,
        "statusTool": "operation_wait",
    }


class FakeApi:
    """The REST API: its OpenAPI document, cluster_list_all, and a long poll that spends (fake) time."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path.removeprefix(f"/{STAGE}/iam")
        user = json.loads(request.headers[ON_BEHALF_OF])
        if user["source"] == "cognito" and not user["groups"]:  # what api.auth refuses
            return httpx.Response(403, json={"code": "Forbidden", "message": "dave has no InstantStart role."})
        if path == "/openapi.json":
            return httpx.Response(200, json=openapi_document())
        if path == "/clusters":
            return httpx.Response(200, json={"clusters": []})
        if path.startswith("/operations/") and path.endswith("/wait"):
            self.now += int(request.url.params["timeoutSeconds"])
            operation_id = path.split("/")[2]
            return httpx.Response(200, json=running_operation(operation_id))
        return httpx.Response(404, json={"code": "NotFound", "message": path})


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> FakeApi:
    fake = FakeApi()
    monkeypatch.setattr(server_module, "time", fake)  # operation_wait's clock is the fake API's
    return fake


@pytest.fixture
def function(api: FakeApi, jwks: dict[str, Any]) -> Iterator[LambdaAsgi]:
    client = ApiClient(API_URL, SigV4("us-west-2", credentials=lambda: CREDENTIALS), transport=httpx.MockTransport(api))
    verifier = CognitoTokenVerifier(ISSUER, CLIENT_ID, jwks=lambda issuer: jwks)
    with asyncio.Runner() as runner:
        yield LambdaAsgi(build_app(client, verifier, ISSUER), runner)


def proxy_event(method: str, path: str, headers: dict[str, str], body: str = "", caller: str | None = None):
    """The REST proxy event API Gateway sends for `https://HOST/v1<path>`."""
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {name: [value] for name, value in headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "requestContext": {
            "stage": STAGE,
            "path": f"/{STAGE}{path}",
            "domainName": HOST,
            "requestId": "req-1",
            "identity": {"sourceIp": "198.51.100.7", "userArn": caller},
        },
        "body": body or None,
        "isBase64Encoded": False,
    }


def gateway(function: LambdaAsgi, caller: str | None = None) -> httpx2.MockTransport:
    """API Gateway in front of the function; `caller` is the IAM principal its SigV4 check verified."""

    async def handle(request: httpx2.Request) -> httpx2.Response:
        path = request.url.path.removeprefix(f"/{STAGE}")
        headers = {name: value for name, value in request.headers.items()}
        event = proxy_event(request.method, path, headers, request.content.decode(), caller)
        result = await anyio.to_thread.run_sync(function, event)
        response_headers = [(name, value) for name, values in result["multiValueHeaders"].items() for value in values]
        return httpx2.Response(result["statusCode"], headers=response_headers, content=result["body"].encode())

    return httpx2.MockTransport(handle)


def mcp_client(function: LambdaAsgi, path: str, headers: dict[str, str], caller: str | None = None) -> Client:
    http = httpx2.AsyncClient(headers=headers, transport=gateway(function, caller))
    return Client(streamable_http_client(f"https://{HOST}/{STAGE}{path}", http_client=http))


def test_initialize_list_and_call_over_oauth_call_the_api_as_the_server_for_the_verified_user(
    function, api, signing_key
):
    bearer = token(signing_key)

    async def session() -> tuple[set[str], Any]:
        async with mcp_client(function, "/mcp", {"Authorization": f"Bearer {bearer}"}) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            return names, await client.call_tool("cluster_list_all", {})

    names, result = asyncio.run(session())
    expected = {op["operationId"] for item in openapi_document()["paths"].values() for op in item.values()}
    assert names == expected
    assert not result.is_error and result.structured_content == {"clusters": []}
    assert [r.url.path for r in api.requests] == ["/v1/iam/openapi.json", "/v1/iam/clusters"]
    for request in api.requests:
        # Its own identity: SigV4 for execute-api, with the audit header under the signature.
        authorization = request.headers["authorization"]
        assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
        assert "/us-west-2/execute-api/aws4_request" in authorization
        assert "x-instantstart-on-behalf-of" in authorization.split("SignedHeaders=")[1].split(",")[0]
        assert request.headers["x-amz-security-token"] == CREDENTIALS.token
        assert json.loads(request.headers[ON_BEHALF_OF]) == {
            "principal": "bob",
            "source": "cognito",
            "groups": ["viewer"],
        }
        # No token passthrough: the user's bearer token goes nowhere.
        assert all(bearer not in value for value in request.headers.values())


def test_the_sigv4_route_acts_for_the_iam_caller_api_gateway_verified(function, api):
    async def call() -> Any:
        async with mcp_client(function, "/mcp-iam", {}, caller=CALLER) as client:
            return await client.call_tool("cluster_list_all", {})

    assert not asyncio.run(call()).is_error
    assert json.loads(api.requests[-1].headers[ON_BEHALF_OF]) == {"principal": CALLER, "source": "iam", "groups": []}


def test_the_sigv4_route_refuses_an_event_without_a_verified_caller(function, api):
    result = function(proxy_event("POST", "/mcp-iam", {"content-type": "application/json"}, "{}"))
    assert result["statusCode"] == 401
    assert api.requests == []


def test_an_unauthenticated_call_is_refused_with_401_naming_the_resource_metadata(function, api):
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    result = function(proxy_event("POST", "/mcp", {"content-type": "application/json"}, request))
    assert result["statusCode"] == 401
    (challenge,) = result["multiValueHeaders"]["www-authenticate"]
    metadata_url = f"https://{HOST}/{STAGE}/.well-known/oauth-protected-resource/mcp"
    assert challenge == f'Bearer resource_metadata="{metadata_url}"'
    assert json.loads(result["body"])["code"] == "Unauthenticated"
    assert api.requests == []


def test_a_user_the_api_refuses_gets_its_refusal_not_a_server_error(function, api, signing_key):
    result = function(bearer_event(token(signing_key, username="dave", **{"cognito:groups": []})))
    assert result["statusCode"] == 403
    assert json.loads(result["body"]) == {"code": "Forbidden", "message": "dave has no InstantStart role."}


def test_get_and_delete_are_not_served_in_stateless_json_mode(function, api, signing_key):
    for method in ("GET", "DELETE"):
        headers = {"authorization": f"Bearer {token(signing_key)}", "accept": "text/event-stream"}
        result = function(proxy_event(method, "/mcp", headers))
        assert result["statusCode"] == 405
        assert result["multiValueHeaders"]["allow"] == ["POST"]
    assert api.requests == []


def test_the_resource_metadata_names_the_endpoint_and_the_user_pool(function):
    result = function(proxy_event("GET", "/.well-known/oauth-protected-resource/mcp", {}))
    assert result["statusCode"] == 200
    metadata = json.loads(result["body"])
    assert metadata["resource"] == f"https://{HOST}/{STAGE}/mcp"
    assert metadata["authorization_servers"] == [ISSUER]
    assert metadata["bearer_methods_supported"] == ["header"]


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({"client_id": "console-client-id"}, id="wrong-audience"),
        pytest.param({"exp": int(time.time()) - 60}, id="expired"),
        pytest.param({"iss": "https://cognito-idp.us-west-2.amazonaws.com/us-west-2_Other"}, id="wrong-issuer"),
        pytest.param({"token_use": "id", "aud": CLIENT_ID}, id="id-token"),
    ],
)
def test_a_token_not_issued_for_this_server_is_refused_as_invalid(function, api, signing_key, overrides):
    result = function(bearer_event(token(signing_key, **overrides)))
    assert result["statusCode"] == 401
    (challenge,) = result["multiValueHeaders"]["www-authenticate"]
    assert challenge.startswith('Bearer error="invalid_token", resource_metadata="https://')
    assert api.requests == []


def test_a_token_with_a_forged_signature_is_refused(function, api):
    forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert function(bearer_event(token(forger)))["statusCode"] == 401
    assert function(bearer_event("not-a-jwt"))["statusCode"] == 401
    assert api.requests == []


def bearer_event(bearer: str) -> dict[str, Any]:
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "authorization": f"Bearer {bearer}",
    }
    return proxy_event("POST", "/mcp", headers, request)


def test_operation_wait_on_lambda_waits_at_most_its_cap_and_says_to_call_again(function, api, signing_key):
    async def wait() -> Any:
        async with mcp_client(function, "/mcp", {"Authorization": f"Bearer {token(signing_key)}"}) as client:
            return await client.call_tool(
                "operation_wait", {"operationId": "op-12345678", "timeoutSeconds": MAX_WAIT_SECONDS}
            )

    result = asyncio.run(wait())
    assert LAMBDA_MAX_WAIT_SECONDS <= 25
    polls = [r for r in api.requests if r.url.path.endswith("/wait")]
    assert [int(r.url.params["timeoutSeconds"]) for r in polls] == [LAMBDA_MAX_WAIT_SECONDS]
    assert not result.is_error
    assert result.structured_content["status"] == "RUNNING"
    assert result.content[0].text.startswith(
        f"Operation op-12345678 is still RUNNING after {LAMBDA_MAX_WAIT_SECONDS} s — call operation_wait again with "
        "operationId=op-12345678."
    )


def test_the_verifier_reads_the_key_set_again_for_an_unknown_key_at_most_every_five_minutes(jwks, signing_key):
    fetches: list[str] = []
    clock = [1000.0]

    def fetch(issuer: str) -> dict[str, Any]:
        fetches.append(issuer)
        return jwks

    verifier = CognitoTokenVerifier(ISSUER, CLIENT_ID, jwks=fetch, clock=lambda: clock[0])
    assert verifier(token(signing_key)) == VerifiedUser("bob", "cognito", ("viewer",))
    rotated = jwt.encode({"sub": "x"}, signing_key, algorithm="RS256", headers={"kid": "key-2"})
    assert verifier(rotated) is None
    assert fetches == [ISSUER]  # fetched at start; too soon to fetch again
    clock[0] += 301
    assert verifier(rotated) is None
    assert fetches == [ISSUER, ISSUER]
