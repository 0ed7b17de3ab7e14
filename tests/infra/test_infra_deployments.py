"""Two deployments in one account and Region (context `deploymentName`), and the Region-wide API Gateway account
setting that a deployment takes over only when asked.

A second app is synthesized here (the session's `synth` is the default deployment): `second`, which also opts in
to the API Gateway CloudWatch role."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME, MANAGED_BY_KEY, state_machine_name
from controlplane.models.operations import OperationKind
from tests.infra.conftest import CONTEXT, control_plane_functions, load_cdk_app

SECOND = "second"
# Properties that name a resource in the account (and Region): two deployments must never write the same one.
PHYSICAL_NAMES = {
    "BucketName",
    "FunctionName",
    "LayerName",
    "LogGroupName",
    "ManagedPolicyName",
    "RoleName",
    "StateMachineName",
    "TableName",
    "UserPoolName",
}


@pytest.fixture(scope="module")
def second(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The templates of a second deployment that also takes over the Region's API Gateway CloudWatch role."""
    outdir = tmp_path_factory.mktemp("second.out")
    context = {**CONTEXT, "deploymentName": SECOND, "apiGatewayAccountRole": "true"}
    app, stack = load_cdk_app().build(context=context, outdir=str(outdir))
    app.synth()
    assert stack.stack_name == f"InstantStartStack-{SECOND}"
    return [json.loads(path.read_text()) for path in sorted(Path(outdir).glob("*.template.json"))]


def physical_names(templates: list[dict[str, Any]]) -> set[str]:
    """Each physical name a template sets (an expression stays one: `{"Fn::Join": ...}` keeps the Region in it);
    a reference to another resource (`Ref`, `Fn::GetAtt`, e.g. a permission's FunctionName) names nothing new."""
    names = set()
    for template in templates:
        for resource in template["Resources"].values():
            properties = resource.get("Properties", {})
            keys = PHYSICAL_NAMES & set(properties) | (
                {"Name"} if resource["Type"] == "AWS::ApiGateway::RestApi" else set()
            )
            for key in keys:
                value = properties[key]
                if not (isinstance(value, dict) and set(value) <= {"Ref", "Fn::GetAtt"}):
                    names.add(json.dumps(value, sort_keys=True))
    return names


def test_two_deployments_share_no_physical_name(synth: Any, second: list[dict[str, Any]]) -> None:
    first = physical_names([json.loads(path.read_text()) for path in synth.template_paths])
    other = physical_names(second)
    assert len(first) >= len(OperationKind) * 2 + 2  # state machines, their log groups, the Kubernetes roles
    assert first & other == set()


def test_the_deployment_name_starts_the_state_machine_and_log_group_names(second: list[dict[str, Any]]) -> None:
    machines = [
        resource["Properties"]
        for template in second
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::StepFunctions::StateMachine"
    ]
    assert {machine["StateMachineName"] for machine in machines} == {
        state_machine_name(SECOND, kind) for kind in OperationKind
    }
    assert state_machine_name(DEFAULT_DEPLOYMENT_NAME, OperationKind.CREATE_CLUSTER) == "instantstart-create-cluster"


def test_every_function_knows_its_deployment(synth: Any, second: list[dict[str, Any]]) -> None:
    def deployments(templates: list[dict[str, Any]]) -> set[str]:
        return {
            function["Properties"]["Environment"]["Variables"]["IS_DEPLOYMENT_NAME"]
            for template in templates
            for function in control_plane_functions(template["Resources"]).values()
        }

    assert deployments([json.loads(path.read_text()) for path in synth.template_paths]) == {DEFAULT_DEPLOYMENT_NAME}
    assert deployments(second) == {SECOND}


def test_a_deployments_steps_create_only_its_own_roles_and_change_only_what_it_tagged(
    second: list[dict[str, Any]],
) -> None:
    statements = [
        statement
        for template in second
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::IAM::Policy"
        for statement in resource["Properties"]["PolicyDocument"]["Statement"]
    ]
    created = [json.dumps(s["Resource"]) for s in statements if "iam:CreateRole" in json.dumps(s["Action"])]
    assert created and all(f":role/{SECOND}-*-" in resources for resources in created)
    owners = {
        s["Condition"]["StringEquals"][key]
        for s in statements
        for key in (f"aws:ResourceTag/{MANAGED_BY_KEY}", f"aws:RequestTag/{MANAGED_BY_KEY}")
        if key in s.get("Condition", {}).get("StringEquals", {})
    }
    assert owners == {SECOND}


@pytest.mark.parametrize("name", ["ab", "with-hyphen", "UPPER", "1starts", "thirteenchars"])
def test_a_deployment_name_that_could_be_read_two_ways_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="deploymentName"):
        load_cdk_app().build(context={**CONTEXT, "deploymentName": name})


def test_the_api_gateway_account_role_is_opt_in_and_retained(synth: Any, second: list[dict[str, Any]]) -> None:
    """The CloudWatch role of API Gateway is one per Region: untouched by default, and when taken over (context
    `apiGatewayAccountRole`), kept when the stack is deleted."""
    assert synth.of_type("AWS::ApiGateway::Account") == {}
    resources = {key: value for template in second for key, value in template["Resources"].items()}
    (account,) = [value for value in resources.values() if value["Type"] == "AWS::ApiGateway::Account"]
    role_id = account["Properties"]["CloudWatchRoleArn"]["Fn::GetAtt"][0]
    for resource in (account, resources[role_id]):
        assert (resource["DeletionPolicy"], resource["UpdateReplacePolicy"]) == ("Retain", "Retain")
