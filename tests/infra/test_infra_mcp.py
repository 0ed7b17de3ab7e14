"""The remote MCP server in the stack: its routes and their authorization, its least-privilege role, its
own asset, layer and app client, and what the API is told about it."""

from __future__ import annotations

import json
from typing import Any

from infra.api_function import API_HANDLER
from infra.mcp import MCP_HANDLER


def mcp_function(synth: Any) -> str:
    return synth.functions_by_handler()[MCP_HANDLER]


def routes_of(synth: Any, function_id: str) -> dict[str, dict[str, Any]]:
    """Full resource path (`.well-known/oauth-protected-resource/mcp`) → method properties, for the
    methods that integrate `function_id`."""
    resources = synth.of_type("AWS::ApiGateway::Resource")

    def full_path(resource_id: str) -> str:
        props = resources[resource_id]["Properties"]
        parent = props["ParentId"]
        prefix = full_path(parent["Ref"]) + "/" if "Ref" in parent else ""
        return prefix + props["PathPart"]

    found = {}
    for method in synth.of_type("AWS::ApiGateway::Method").values():
        props = method["Properties"]
        if function_id in json.dumps(props["Integration"]["Uri"]):
            found[full_path(props["ResourceId"]["Ref"])] = props
    return found


def test_mcp_routes_and_their_authorization(synth: Any) -> None:
    routes = routes_of(synth, mcp_function(synth))
    assert set(routes) == {"mcp", "mcp-iam", ".well-known/oauth-protected-resource/mcp"}
    # /mcp: no gateway authorizer, so that the function can answer 401 with its RFC 9728 metadata.
    assert (routes["mcp"]["HttpMethod"], routes["mcp"]["AuthorizationType"]) == ("ANY", "NONE")
    assert (routes["mcp-iam"]["HttpMethod"], routes["mcp-iam"]["AuthorizationType"]) == ("ANY", "AWS_IAM")
    metadata = routes[".well-known/oauth-protected-resource/mcp"]
    assert (metadata["HttpMethod"], metadata["AuthorizationType"]) == ("GET", "NONE")
    assert all(props["Integration"]["Type"] == "AWS_PROXY" for props in routes.values())


def test_the_mcp_role_may_only_invoke_the_apis_sigv4_routes(synth: Any) -> None:
    role = synth.role_of(mcp_function(synth))
    statements = synth.statements(role)
    invoke = [s for s in statements if s["Action"] == "execute-api:Invoke"]
    (statement,) = invoke
    (api_id,) = synth.of_type("AWS::ApiGateway::RestApi")
    parts = statement["Resource"]["Fn::Join"][1]
    assert {"Ref": api_id} in parts
    assert parts[-1] == "/v1/*/iam/*"  # this API's stage, SigV4 routes only: not the Cognito ones, not /mcp
    others = {a for s in statements if s is not statement for a in _actions(s)}
    assert others == {"logs:CreateLogStream", "logs:PutLogEvents", "xray:PutTraceSegments", "xray:PutTelemetryRecords"}


def test_the_mcp_function_ships_only_the_mcp_server_with_its_own_layer(synth: Any) -> None:
    props = synth.resources[mcp_function(synth)]["Properties"]
    api_props = synth.resources[synth.functions_by_handler()[API_HANDLER]]["Properties"]
    assert props["Layers"] != api_props["Layers"] and props["Code"] != api_props["Code"]
    asset_dirs = [p for p in synth.outdir.glob("asset.*") if (p / "mcp_server" / "lambda_handler.py").is_file()]
    (asset,) = asset_dirs
    assert {p.name for p in asset.iterdir()} == {"mcp_server"}
    assert not list(asset.rglob("__pycache__"))


def test_the_mcp_function_knows_the_api_the_pool_and_its_own_app_client(synth: Any) -> None:
    variables = synth.resources[mcp_function(synth)]["Properties"]["Environment"]["Variables"]
    (api_id,) = synth.of_type("AWS::ApiGateway::RestApi")
    url = variables["IS_API_URL"]["Fn::Join"][1]
    assert url[0] == "https://" and url[1] == {"Ref": api_id} and url[-1] == "/v1/iam"
    (pool,) = synth.of_type("AWS::Cognito::UserPool")
    assert variables["IS_COGNITO_ISSUER"] == {"Fn::GetAtt": [pool, "ProviderURL"]}
    clients = synth.of_type("AWS::Cognito::UserPoolClient")
    (mcp_client,) = [key for key in clients if key.startswith("UserPoolMcpClient")]
    assert variables["IS_MCP_CLIENT_ID"] == {"Ref": mcp_client}


def test_the_mcp_app_client_is_public_and_uses_the_code_flow(synth: Any) -> None:
    clients = synth.of_type("AWS::Cognito::UserPoolClient")
    (props,) = [c["Properties"] for key, c in clients.items() if key.startswith("UserPoolMcpClient")]
    assert props["GenerateSecret"] is False
    assert props["AllowedOAuthFlows"] == ["code"]
    assert props["AllowedOAuthFlowsUserPoolClient"] is True
    assert props["SupportedIdentityProviders"] == ["COGNITO"]
    assert props["PreventUserExistenceErrors"] == "ENABLED"


def test_the_api_recognises_the_mcp_role_and_caps_it(synth: Any) -> None:
    variables = synth.resources[synth.functions_by_handler()[API_HANDLER]]["Properties"]["Environment"]["Variables"]
    assert variables["IS_MCP_ROLE_ARN"] == {"Fn::GetAtt": [synth.role_of(mcp_function(synth)), "Arn"]}
    assert variables["IS_MCP_MAX_ROLE"] == "admin"


def test_outputs_name_both_mcp_urls_and_the_client(synth: Any) -> None:
    outputs = synth.template["Outputs"]
    assert outputs["McpUrl"]["Value"]["Fn::Join"][1][-1] == "/mcp"
    assert outputs["McpIamUrl"]["Value"]["Fn::Join"][1][-1] == "/mcp-iam"
    assert "McpClientId" in outputs and "UserPoolIssuer" in outputs


def _actions(statement: dict[str, Any]) -> list[str]:
    actions = statement["Action"]
    return actions if isinstance(actions, list) else [actions]
