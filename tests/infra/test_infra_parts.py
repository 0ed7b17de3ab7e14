"""The root stack's parts (`infra.parts`) are transparent to logical IDs: a resource in a part has the logical ID CDK
gives it at the stack's top, so grouping resources into parts replaces nothing a deployed stack holds."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from controlplane.adapters.aws.tables import TABLES
from infra.parts import Part, PartsStack

PATHS = [
    ("Queue",),
    ("Group", "Queue"),
    ("Group", "Default", "Queue"),  # "Default" is left out of logical IDs
    ("Queue", "Queue"),  # a repeated id is named once
    ("api-v1.x", "Queue"),  # only letters and digits
    ("L" * 300,),  # a single id too long to be the logical ID as it is
    ("Group", "M" * 250),  # the readable part is cut at 240 characters
]


def logical_id(scope: Construct, path: tuple[str, ...]) -> str:
    for construct_id in path[:-1]:
        scope = Construct(scope, construct_id)
    queue = sqs.Queue(scope, path[-1])
    cfn = queue.node.default_child
    assert isinstance(cfn, cdk.CfnElement)
    return str(cdk.Stack.of(queue).resolve(cfn.logical_id))


@pytest.mark.parametrize("path", PATHS, ids=lambda path: "/".join(part[:12] for part in path))
def test_a_resource_in_parts_has_the_logical_id_cdk_gives_it_outside_them(path: tuple[str, ...]) -> None:
    app = cdk.App()
    expected = logical_id(cdk.Stack(app, "Plain"), path)
    assert logical_id(PartsStack(app, "Bare"), path) == expected
    assert logical_id(Part(PartsStack(app, "OnePart"), "Part"), path) == expected
    assert logical_id(Part(Part(PartsStack(app, "TwoParts"), "Outer"), "Inner"), path) == expected


def invoke_permission_ids(stack: cdk.Stack, api_scope: Construct) -> set[str]:
    function = lambda_.Function(
        stack,
        "Function",
        runtime=lambda_.Runtime.PYTHON_3_12,
        handler="index.handler",
        code=lambda_.Code.from_inline("pass"),
    )
    api = apigw.RestApi(api_scope, "Api")
    api.root.add_resource("{proxy+}").add_method("ANY", apigw.LambdaIntegration(function))
    permissions = [c for c in api.node.find_all() if isinstance(c, lambda_.CfnPermission)]
    return {str(stack.resolve(permission.logical_id)) for permission in permissions}


def test_an_invoke_permission_naming_its_rest_api_keeps_its_logical_id_in_a_part() -> None:
    """API Gateway's invoke permission embeds its REST API's unique id in its own: the id outside parts counts."""
    plain = cdk.Stack(cdk.App(), "Stack")
    parted = PartsStack(cdk.App(), "Stack")
    expected = invoke_permission_ids(plain, plain)
    assert len(expected) == 2  # the stage's and the console's test invocation
    assert invoke_permission_ids(parted, Part(parted, "RestApi")) == expected


def test_the_retained_resources_have_the_logical_ids_they_had_at_the_stacks_top(synth: Any) -> None:
    """Tables and the user pool are retained on delete: a new logical ID would create empty ones beside them."""
    plain = cdk.Stack(cdk.App(), "Plain")
    key = dynamodb.Attribute(name="id", type=dynamodb.AttributeType.STRING)
    expected = [
        dynamodb.Table(plain, f"{spec.logical_name}Table", partition_key=key).node.default_child for spec in TABLES
    ]
    expected.append(cognito.UserPool(plain, "UserPool").node.default_child)
    ids = {str(plain.resolve(cfn.logical_id)) for cfn in expected if isinstance(cfn, cdk.CfnElement)}
    assert len(ids) == len(TABLES) + 1
    assert ids == set(synth.of_type("AWS::DynamoDB::Table")) | set(synth.of_type("AWS::Cognito::UserPool"))
