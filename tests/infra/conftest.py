"""One synthesized InstantStart app (with the cdk-nag plugin) shared by every infra test.

Synthesis is the expensive part (~15 s through jsii), so it happens once per session, offline:
`skipLayerBundling` keeps pip and the network out of it.

The app is a root stack with nested stacks. Tests read one merged template: every template's resources, with
each reference that crosses a stack boundary (a nested stack's parameter, a nested stack's output) replaced by
the expression it stands for in the stack that defines it, so `{"Fn::GetAtt": [id, "Arn"]}` names the resource
wherever it lives. Logical IDs are unique across the templates (asserted).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
if str(ROOT / "functions") not in sys.path:
    sys.path.insert(0, str(ROOT / "functions"))

CONTEXT = {"skipLayerBundling": True}


def load_cdk_app() -> Any:
    """The project's app.py (the composition root), imported by path: `app` is too common a name."""
    spec = importlib.util.spec_from_file_location("instantstart_cdk_app", ROOT / "app.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def control_plane_functions(resources: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The Lambda functions among `resources` that are the control plane's: all but the handler of CDK's bucket
    deployment, which uploads the console's files (`infra.console`)."""
    deployers = [
        resource["Properties"]["ServiceToken"]
        for resource in resources.values()
        if resource["Type"] == "Custom::CDKBucketDeployment"
    ]
    return {
        key: resource
        for key, resource in resources.items()
        if resource["Type"] == "AWS::Lambda::Function" and {"Fn::GetAtt": [key, "Arn"]} not in deployers
    }


@dataclass
class Synth:
    app: Any
    stack: Any
    outdir: Path
    template: dict[str, Any]  # merged: every template's resources, cross-stack references resolved
    assertions: Any  # aws_cdk.assertions.Template of the root stack
    template_paths: list[Path]  # the root template, then the nested ones, as cdk.out holds them

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        return self.template["Resources"]

    def of_type(self, resource_type: str) -> dict[str, dict[str, Any]]:
        return {key: value for key, value in self.resources.items() if value["Type"] == resource_type}

    def functions(self) -> dict[str, dict[str, Any]]:
        """The control plane's Lambda functions (see `control_plane_functions`)."""
        return control_plane_functions(self.resources)

    def functions_by_handler(self) -> dict[str, str]:
        """Lambda handler of the API and the MCP server (`api.handler.lambda_handler`) → the function's logical ID."""
        functions = self.functions()
        return {props["Properties"]["Handler"]: key for key, props in functions.items()}

    def functions_by_description(self) -> dict[str, str]:
        """Description (`InstantStart workflow steps: network`) → the function's logical ID."""
        functions = self.functions()
        return {props["Properties"]["Description"]: key for key, props in functions.items()}

    def step_function(self, group: str) -> str:
        """The logical ID of the function serving a step group of `infra.access.steps.STEP_GROUPS`."""
        return self.functions_by_description()[f"InstantStart workflow steps: {group}"]

    def role_of(self, function_id: str) -> str:
        return self.resources[function_id]["Properties"]["Role"]["Fn::GetAtt"][0]

    def statements(self, role_id: str) -> list[dict[str, Any]]:
        """Every statement of the policies attached to a role (inline, AWS::IAM::Policy, managed by the stack)."""
        found = []
        for policy in self.resources[role_id]["Properties"].get("Policies", []):
            found.extend(policy["PolicyDocument"]["Statement"])
        for policy in [*self.of_type("AWS::IAM::Policy").values(), *self.of_type("AWS::IAM::ManagedPolicy").values()]:
            if {"Ref": role_id} in policy["Properties"].get("Roles", []):
                found.extend(policy["Properties"]["PolicyDocument"]["Statement"])
        return found


def merge(root: Path, nested: dict[tuple[Path, str], Path]) -> dict[str, Any]:
    """The root template with the nested templates' resources, cross-stack references resolved.

    `nested` maps (parent template, logical ID of the AWS::CloudFormation::Stack resource) to the child template.
    """
    templates = {path: json.loads(path.read_text()) for path in [root, *nested.values()]}
    parent_of = {child: key for key, child in nested.items()}

    def resolve(value: Any, path: Path) -> Any:
        if isinstance(value, list):
            return [resolve(item, path) for item in value]
        if not isinstance(value, dict):
            return value
        if list(value) == ["Ref"] and path in parent_of and value["Ref"] in templates[path].get("Parameters", {}):
            parent, stack_resource = parent_of[path]
            passed = templates[parent]["Resources"][stack_resource]["Properties"]["Parameters"][value["Ref"]]
            return resolve(passed, parent)
        if list(value) == ["Fn::GetAtt"] and (path, value["Fn::GetAtt"][0]) in nested:
            child = nested[(path, value["Fn::GetAtt"][0])]
            output = value["Fn::GetAtt"][1].removeprefix("Outputs.")
            return resolve(templates[child]["Outputs"][output]["Value"], child)
        return {key: resolve(item, path) for key, item in value.items()}

    resources: dict[str, Any] = {}
    for path, template in templates.items():
        for key, resource in template["Resources"].items():
            assert key not in resources, f"logical ID {key} is in two templates"
            resources[key] = resolve(resource, path)
    return {**templates[root], "Resources": resources, "Outputs": resolve(templates[root].get("Outputs", {}), root)}


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    from aws_cdk import NestedStack, Stack
    from aws_cdk.assertions import Template

    outdir = tmp_path_factory.mktemp("cdk.out")
    app, stack = load_cdk_app().build(context=CONTEXT, outdir=str(outdir))
    app.synth()  # raises if cdk-nag reports an unacknowledged finding
    root = outdir / stack.template_file
    nested = {}
    for construct in app.node.find_all():
        if isinstance(construct, NestedStack):
            parent = construct.nested_stack_parent
            assert parent is not None
            parent_path = root if parent is stack else outdir / parent.template_file
            stack_resource = Stack.of(construct.nested_stack_resource).resolve(
                construct.nested_stack_resource.logical_id
            )
            nested[(parent_path, stack_resource)] = outdir / construct.template_file
    return Synth(app, stack, outdir, merge(root, nested), Template.from_stack(stack), [root, *nested.values()])


@pytest.fixture(scope="session")
def validation_report(synth: Synth) -> dict[str, Any]:
    return json.loads((synth.outdir / "validation-report.json").read_text())
