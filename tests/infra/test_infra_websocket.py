"""The live logs' WebSocket API: routes selected by the body's action, `$connect` behind the token authorizer, the
connections table with TTL and a topic index, ManageConnections on this API's posts only, the pusher allowed to
start itself, the stage logged and throttled, and its URL in the outputs and the console's config.json."""

from __future__ import annotations

import json
from typing import Any

from infra.websocket import AUTHORIZER_HANDLER, HANDLER, PUSHER_SECONDS, ROUTES, STAGE, TOKEN_SOURCE
from tests.infra.test_infra_console import resolved


def one(synth: Any, resource_type: str) -> tuple[str, dict[str, Any]]:
    ((key, resource),) = synth.of_type(resource_type).items()
    return key, resource["Properties"]


def test_a_websocket_api_routes_by_the_bodys_action(synth: Any) -> None:
    api_key, api = one(synth, "AWS::ApiGatewayV2::Api")
    assert api["ProtocolType"] == "WEBSOCKET"
    assert api["RouteSelectionExpression"] == "$request.body.action"
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in synth.of_type("AWS::ApiGatewayV2::Route").values()}
    assert set(routes) == {"$connect", "$disconnect", "$default", *ROUTES}
    assert all(route["ApiId"] == {"Ref": api_key} for route in routes.values())
    integrations = synth.of_type("AWS::ApiGatewayV2::Integration").values()
    handler = synth.functions_by_handler()[HANDLER]
    assert all(handler in json.dumps(i["Properties"]["IntegrationUri"]) for i in integrations)


def test_only_connect_is_authorized_by_the_token_authorizer(synth: Any) -> None:
    authorizer_key, authorizer = one(synth, "AWS::ApiGatewayV2::Authorizer")
    assert authorizer["AuthorizerType"] == "REQUEST"
    assert authorizer["IdentitySource"] == [TOKEN_SOURCE]
    assert synth.functions_by_handler()[AUTHORIZER_HANDLER] in json.dumps(authorizer["AuthorizerUri"])
    for route in synth.of_type("AWS::ApiGatewayV2::Route").values():
        props = route["Properties"]
        if props["RouteKey"] == "$connect":
            assert (props["AuthorizationType"], props["AuthorizerId"]) == ("CUSTOM", {"Ref": authorizer_key})
        else:
            assert props.get("AuthorizationType", "NONE") == "NONE"


def test_the_authorizer_accepts_the_consoles_id_tokens_of_the_pool(synth: Any) -> None:
    variables = synth.resources[synth.functions_by_handler()[AUTHORIZER_HANDLER]]["Properties"]["Environment"]
    (client,) = [k for k in synth.of_type("AWS::Cognito::UserPoolClient") if k.startswith("UserPoolConsoleClient")]
    assert variables["Variables"]["IS_CONSOLE_CLIENT_ID"] == {"Ref": client}
    assert "IS_COGNITO_ISSUER" in variables["Variables"]


def test_the_connections_table_expires_rows_and_indexes_them_by_topic(synth: Any) -> None:
    (table,) = [t["Properties"] for k, t in synth.of_type("AWS::DynamoDB::Table").items() if "Connections" in k]
    assert table["KeySchema"] == [{"AttributeName": "connectionId", "KeyType": "HASH"}]
    assert table["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}
    (index,) = table["GlobalSecondaryIndexes"]
    assert (index["IndexName"], index["KeySchema"][0]["AttributeName"]) == ("byTopic", "topic")


def test_the_handler_posts_to_this_apis_connections_only_and_may_start_itself(synth: Any) -> None:
    function_key = synth.functions_by_handler()[HANDLER]
    function = synth.resources[function_key]["Properties"]
    statements = synth.statements(synth.role_of(function_key))
    api_key, _ = one(synth, "AWS::ApiGatewayV2::Api")
    (manage,) = [s for s in statements if s["Action"] == "execute-api:ManageConnections"]
    resource = json.dumps(manage["Resource"])
    assert api_key in resource and f"/{STAGE}/POST/@connections/*" in resource
    (invoke,) = [s for s in statements if s["Action"] == "lambda:InvokeFunction"]
    assert json.dumps(invoke["Resource"]).endswith(f':function:{function["FunctionName"]}"]]}}')
    variables = function["Environment"]["Variables"]
    assert variables["IS_WS_PUSHER_SECONDS"] == str(PUSHER_SECONDS) and function["Timeout"] > PUSHER_SECONDS
    assert api_key in json.dumps(variables["IS_WS_MANAGEMENT_URL"])
    assert not [s for s in statements if s["Action"] in ("execute-api:*", "lambda:*")]


def test_the_stage_logs_and_throttles(synth: Any) -> None:
    _, stage = one(synth, "AWS::ApiGatewayV2::Stage")
    assert stage["StageName"] == STAGE and stage["AutoDeploy"] is True
    assert "DestinationArn" in stage["AccessLogSettings"]
    assert "$context.connectionId" in stage["AccessLogSettings"]["Format"]
    assert stage["DefaultRouteSettings"]["ThrottlingRateLimit"] > 0


def test_the_url_is_an_output_and_the_consoles_ws_base(synth: Any) -> None:
    outputs = synth.template["Outputs"]
    assert "wss://" in json.dumps(outputs["WebSocketUrl"]["Value"])
    config = resolved(synth, synth.stack.console.config)
    assert config["wsBase"] == outputs["WebSocketUrl"]["Value"]
