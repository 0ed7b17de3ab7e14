"""Data protection, logging, function configuration and the API surface of the synthesized template
(checked directly, independent of cdk-nag, so that a rule-pack change cannot silently drop them)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Match

from controlplane.adapters.aws.tables import TABLES
from controlplane.core.auth import Role
from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME, state_machine_name
from controlplane.models.operations import OperationKind
from controlplane.settings import Settings
from infra.access.steps import STEP_GROUPS, group_access
from infra.api_function import API_HANDLER, iam_role_bindings
from infra.drift import RECONCILE_HANDLER
from infra.mcp import MCP_HANDLER
from infra.rest_api import ACCESS_LOG_FIELDS
from infra.websocket import AUTHORIZER_HANDLER as WS_AUTHORIZER_HANDLER


def environment(synth: Any, handler: str) -> dict[str, Any]:
    return variables_of(synth, synth.functions_by_handler()[handler])


def variables_of(synth: Any, function: str) -> dict[str, Any]:
    return synth.resources[function]["Properties"]["Environment"]["Variables"]


def table_env_names(synth: Any) -> dict[str, str]:
    """Each table's environment variable → the table's logical ID, read from the API function's environment."""
    variables = environment(synth, "api.handler.lambda_handler")
    names = [Settings.variable(spec.setting) for spec in TABLES]
    return {name: variables[name]["Ref"] for name in names}


# --- DynamoDB --------------------------------------------------------------------------------------


def test_tables_follow_the_runtime_table_specs(synth: Any) -> None:
    # By logical ID: two tables may share a partition key's name (Clusters and Drift are both by clusterTag).
    tables = synth.of_type("AWS::DynamoDB::Table")
    assert len(tables) == len(TABLES)
    for spec, logical_id in zip(TABLES, table_env_names(synth).values(), strict=True):
        props = tables[logical_id]["Properties"]
        keys = {k["KeyType"]: k["AttributeName"] for k in props["KeySchema"]}
        assert keys == {"HASH": spec.partition_key, **({"RANGE": spec.sort_key} if spec.sort_key else {})}
        indexes = {index["IndexName"]: index for index in props.get("GlobalSecondaryIndexes", [])}
        assert set(indexes) == {index.name for index in spec.indexes}
        for index in spec.indexes:
            assert indexes[index.name]["Projection"] == {"ProjectionType": "ALL"}
            index_keys = {k["KeyType"]: k["AttributeName"] for k in indexes[index.name]["KeySchema"]}
            assert index_keys == {
                "HASH": index.partition_key,
                **({"RANGE": index.sort_key} if index.sort_key else {}),
            }
        assert all(a["AttributeType"] == "S" for a in props["AttributeDefinitions"])
        if spec.ttl_attribute:
            assert props["TimeToLiveSpecification"] == {"AttributeName": spec.ttl_attribute, "Enabled": True}
        else:
            assert "TimeToLiveSpecification" not in props


def test_tables_are_on_demand_recoverable_encrypted_and_retained(synth: Any) -> None:
    for key, table in synth.of_type("AWS::DynamoDB::Table").items():
        props = table["Properties"]
        assert props["BillingMode"] == "PAY_PER_REQUEST", key
        assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True, key
        assert props["SSESpecification"]["SSEEnabled"] is True, key
        assert props["DeletionProtectionEnabled"] is True, key
        assert table["DeletionPolicy"] == "Retain" and table["UpdateReplacePolicy"] == "Retain", key


# --- logs and functions ----------------------------------------------------------------------------


def test_every_log_group_has_a_retention(synth: Any) -> None:
    groups = synth.of_type("AWS::Logs::LogGroup")
    assert groups
    assert {
        key: g["Properties"].get("RetentionInDays")
        for key, g in groups.items()
        if not g["Properties"].get("RetentionInDays")
    } == {}


def test_functions_are_traced_sized_and_log_to_their_own_group(synth: Any) -> None:
    functions = synth.functions()
    # One per step group, the API, the MCP server, the reconcile, the WebSocket handler and its authorizer, HyperPod
    # events.
    assert len(functions) == len(STEP_GROUPS) + 6
    log_groups = set()
    layers = set()
    for key, function in functions.items():
        props = function["Properties"]
        assert props["TracingConfig"] == {"Mode": "Active"}, key
        assert props["Runtime"] == "python3.12", key
        assert props["Architectures"] == ["arm64"], key
        assert props["MemorySize"] == 512, key
        expected_timeout = {API_HANDLER: 29, MCP_HANDLER: 29, WS_AUTHORIZER_HANDLER: 29, RECONCILE_HANDLER: 900}.get(
            props["Handler"], 60
        )
        assert props["Timeout"] == expected_timeout, key
        log_groups.add(props["LoggingConfig"]["LogGroup"]["Ref"])
        layers.add(json.dumps(props["Layers"]))
        assert props["Environment"]["Variables"]["POWERTOOLS_SERVICE_NAME"] == "instantstart"
    assert len(log_groups) == len(functions)  # one log group per function
    assert len(layers) == 2  # the control plane's dependency layer, and the MCP server's


def test_one_code_asset_for_every_control_plane_function(synth: Any) -> None:
    functions = synth.functions().values()
    control_plane = [f for f in functions if f["Properties"]["Handler"] != MCP_HANDLER]
    code = {json.dumps(function["Properties"]["Code"], sort_keys=True) for function in control_plane}
    assert len(code) == 1
    asset_dirs = [p for p in synth.outdir.glob("asset.*") if (p / "steps").is_dir()]
    assert len(asset_dirs) == 1
    shipped = {p.name for p in asset_dirs[0].iterdir()}
    assert {"api", "controlplane", "steps"} <= shipped
    assert not {"infra", "sandbox"} & shipped
    assert not list(asset_dirs[0].rglob("__pycache__"))


def test_one_role_per_function(synth: Any) -> None:
    functions = synth.of_type("AWS::Lambda::Function")
    roles = [synth.role_of(key) for key in functions]
    assert len(set(roles)) == len(roles)


# --- environment -----------------------------------------------------------------------------------


def render(value: Any) -> str:
    """A CloudFormation string with `Ref`s shown as `<LogicalId>` (enough to read CDK's JSON strings)."""
    if isinstance(value, str):
        return value
    if "Ref" in value:
        return f"<{value['Ref']}>"
    delimiter, parts = value["Fn::Join"]
    return delimiter.join(render(part) for part in parts)


def test_api_environment(synth: Any) -> None:
    variables = environment(synth, "api.handler.lambda_handler")
    assert set(table_env_names(synth)) <= set(variables)
    assert variables["IS_IAM_ROLE_BINDINGS"] == "{}"
    machines = {
        props["Properties"]["StateMachineName"]: key
        for key, props in synth.of_type("AWS::StepFunctions::StateMachine").items()
    }
    arns = json.loads(render(variables["IS_STATE_MACHINE_ARNS"]))
    assert arns == {
        kind.value: f"<{machines[state_machine_name(DEFAULT_DEPLOYMENT_NAME, kind)]}>" for kind in OperationKind
    }
    # Status, instance-group and node views read Kubernetes nodes and pods through the view role, never as admin.
    (role_key,) = [k for k in synth.of_type("AWS::IAM::Role") if k.startswith("KubernetesViewRole")]
    assert variables["IS_KUBERNETES_VIEW_ROLE_ARN"] == {"Fn::GetAtt": [role_key, "Arn"]}
    assert "IS_KUBERNETES_ROLE_ARN" not in variables


def test_api_environment_names_the_role_boundaries_the_features_state_is_read_with(synth: Any) -> None:
    """GET /clusters/{tag}/features builds the features' steps, which take the boundaries of the roles they create."""
    variables = environment(synth, "api.handler.lambda_handler")
    policies = synth.of_type("AWS::IAM::ManagedPolicy")
    for field, construct in (
        ("workload_role_boundary_arn", "WorkloadRoleBoundary"),
        ("autoscaling_role_boundary_arn", "AutoscalingRoleBoundary"),
        ("service_role_boundary_arn", "ServiceRoleBoundary"),
    ):
        (key,) = [k for k in policies if k.startswith(construct)]
        assert variables[Settings.variable(field)] == {"Ref": key}


def test_step_environment(synth: Any) -> None:
    roles = synth.of_type("AWS::IAM::Role")
    (role_key,) = [k for k in roles if k.startswith("KubernetesAccessRole")]
    # The steps name the Kubernetes access role by its fixed name (their nested stack cannot reference it).
    role_name = render(roles[role_key]["Properties"]["RoleName"])
    kubernetes_role_arn = f"arn:<AWS::Partition>:iam::<AWS::AccountId>:role/{role_name}"
    for group in STEP_GROUPS:
        variables = variables_of(synth, synth.step_function(group))
        # settings() reads every table name; IAM grants only the operations and clusters tables.
        assert set(table_env_names(synth)) <= set(variables), group
        assert variables["IS_POLL_SECONDS"] == "5" and variables["IS_POLL_MAX_SECONDS"] == "7200"
        assert "IS_STATE_MACHINE_ARNS" not in variables and "IS_IAM_ROLE_BINDINGS" not in variables
        if group_access(group).assumes_kubernetes_role:
            assert render(variables["IS_KUBERNETES_ROLE_ARN"]) == kubernetes_role_arn, group
        else:
            assert "IS_KUBERNETES_ROLE_ARN" not in variables, group


# --- API and identity ------------------------------------------------------------------------------


def test_api_routes_and_authorization(synth: Any) -> None:
    path_parts = synth.of_type("AWS::ApiGateway::Resource").items()
    resources = {key: resource["Properties"]["PathPart"] for key, resource in path_parts}
    methods = synth.of_type("AWS::ApiGateway::Method")
    api_function = synth.functions_by_handler()[API_HANDLER]
    by_path = {}
    for method in methods.values():
        props = method["Properties"]
        if api_function not in json.dumps(props["Integration"]["Uri"]):
            continue  # the MCP server's routes (tests/infra/test_infra_mcp.py)
        path = resources[props["ResourceId"]["Ref"]]
        parent = synth.resources[props["ResourceId"]["Ref"]]["Properties"]["ParentId"]
        prefix = resources[parent["Ref"]] + "/" if "Ref" in parent else ""
        by_path[prefix + path] = props
        assert props["HttpMethod"] == "ANY"
        assert props["Integration"]["Type"] == "AWS_PROXY"
        assert props["RequestValidatorId"]
        assert props["RequestParameters"] == {"method.request.path.proxy": True}
    assert set(by_path) == {"{proxy+}", "iam/{proxy+}"}
    assert by_path["{proxy+}"]["AuthorizationType"] == "COGNITO_USER_POOLS"
    assert by_path["{proxy+}"]["AuthorizerId"]
    assert by_path["iam/{proxy+}"]["AuthorizationType"] == "AWS_IAM"
    (authorizer,) = synth.of_type("AWS::ApiGateway::Authorizer").values()
    assert authorizer["Properties"]["Type"] == "COGNITO_USER_POOLS"


def test_api_stage_logs_traces_and_throttles(synth: Any) -> None:
    synth.assertions.has_resource_properties(
        "AWS::ApiGateway::Stage",
        {
            "StageName": "v1",
            "TracingEnabled": True,
            "AccessLogSetting": {"DestinationArn": Match.any_value(), "Format": Match.any_value()},
            "MethodSettings": [
                Match.object_like(
                    {
                        "HttpMethod": "*",
                        "ResourcePath": "/*",
                        "LoggingLevel": "INFO",
                        "MetricsEnabled": True,
                        "DataTraceEnabled": False,
                        "ThrottlingRateLimit": 50,
                        "ThrottlingBurstLimit": 100,
                    }
                )
            ],
        },
    )
    (stage,) = synth.of_type("AWS::ApiGateway::Stage").values()
    assert json.loads(stage["Properties"]["AccessLogSetting"]["Format"]) == ACCESS_LOG_FIELDS
    synth.assertions.has_resource_properties(
        "AWS::ApiGateway::RestApi",
        {
            "EndpointConfiguration": {"Types": ["REGIONAL"]},
        },
    )
    synth.assertions.has_resource_properties(
        "AWS::ApiGateway::RequestValidator",
        {
            "ValidateRequestBody": True,
            "ValidateRequestParameters": True,
        },
    )


def test_user_pool_is_closed_and_requires_strong_authentication(synth: Any) -> None:
    synth.assertions.has_resource_properties(
        "AWS::Cognito::UserPool",
        {
            "AdminCreateUserConfig": {"AllowAdminCreateUserOnly": True},
            "MfaConfiguration": "ON",
            "EnabledMfas": ["SOFTWARE_TOKEN_MFA"],
            "Policies": {
                "PasswordPolicy": Match.object_like(
                    {
                        "MinimumLength": 14,
                        "RequireLowercase": True,
                        "RequireUppercase": True,
                        "RequireNumbers": True,
                        "RequireSymbols": True,
                    }
                )
            },
            "UserPoolTier": "PLUS",
            "UserPoolAddOns": {"AdvancedSecurityMode": "ENFORCED"},
        },
    )
    groups = {g["Properties"]["GroupName"] for g in synth.of_type("AWS::Cognito::UserPoolGroup").values()}
    assert groups == {role.name.lower() for role in Role}
    synth.assertions.has_resource_properties(
        "AWS::Cognito::UserPoolClient",
        {
            "GenerateSecret": False,
            "AllowedOAuthFlows": ["code"],
            "ExplicitAuthFlows": Match.array_with(["ALLOW_USER_SRP_AUTH"]),
            "PreventUserExistenceErrors": "ENABLED",
        },
    )


def test_outputs(synth: Any) -> None:
    outputs = synth.template["Outputs"]
    for name in (
        "ApiUrl",
        "IamApiUrl",
        "UserPoolId",
        "UserPoolClientId",
        "KubernetesAccessRoleArn",
        "KubernetesViewRoleArn",
    ):
        assert name in outputs


def test_iam_role_bindings_context() -> None:
    arn = "arn:aws:iam::123456789012:role/mcp-server"
    assert iam_role_bindings(None) == {}
    assert iam_role_bindings({arn: "operator"}) == {arn: "operator"}
    assert iam_role_bindings(json.dumps({arn: "admin"})) == {arn: "admin"}  # `-c iamRoleBindings=...`
    for bad in ({arn: "root"}, {"arn:aws:sts::123456789012:assumed-role/x/y": "viewer"}):
        with pytest.raises(ValueError):
            iam_role_bindings(bad)


def test_gateway_refusals_use_the_api_error_body(synth: Any) -> None:
    responses = {
        props["Properties"]["ResponseType"]: props["Properties"]
        for props in synth.of_type("AWS::ApiGateway::GatewayResponse").values()
    }
    assert {"UNAUTHORIZED", "ACCESS_DENIED", "DEFAULT_4XX", "DEFAULT_5XX"} <= responses.keys()
    assert responses["UNAUTHORIZED"]["StatusCode"] == "401"
    for response in responses.values():
        body = json.loads(response["ResponseTemplates"]["application/json"])
        assert set(body) == {"code", "message", "requestId"}
        assert body["requestId"] == "$context.requestId"
