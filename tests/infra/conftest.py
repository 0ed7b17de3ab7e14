"""One synthesized InstantStart app (with the cdk-nag plugin) shared by every infra test.

Synthesis is the expensive part (~15 s through jsii), so it happens once per session, offline:
`skipLayerBundling` keeps pip and the network out of it.
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

from controlplane.workflows import step_key

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


@dataclass
class Synth:
    app: Any
    stack: Any
    outdir: Path
    template: dict[str, Any]
    assertions: Any  # aws_cdk.assertions.Template

    @property
    def resources(self) -> dict[str, dict[str, Any]]:
        return self.template["Resources"]

    def of_type(self, resource_type: str) -> dict[str, dict[str, Any]]:
        return {key: value for key, value in self.resources.items() if value["Type"] == resource_type}

    @property
    def template_path(self) -> Path:
        return self.outdir / self.stack.template_file

    def functions_by_handler(self) -> dict[str, str]:
        """Lambda handler of a one-function entry point (`api.handler.lambda_handler`) → the function's logical ID."""
        functions = self.of_type("AWS::Lambda::Function")
        return {props["Properties"]["Handler"]: key for key, props in functions.items()}

    def step_functions(self) -> dict[str, str]:
        """Step key → the logical ID of the function the state machines invoke for that step (exactly one)."""
        served: dict[str, str] = {}
        for machine in self.of_type("AWS::StepFunctions::StateMachine").values():
            for placeholder, value in machine["Properties"]["DefinitionSubstitutions"].items():
                function = value["Fn::GetAtt"][0]
                assert served.setdefault(step_key(placeholder), function) == function, f"{placeholder}: two functions"
        return served

    def role_of(self, function_id: str) -> str:
        return self.resources[function_id]["Properties"]["Role"]["Fn::GetAtt"][0]

    def statements(self, role_id: str) -> list[dict[str, Any]]:
        """Every statement of the policies attached to a role (inline and AWS::IAM::Policy)."""
        found = []
        for policy in self.resources[role_id]["Properties"].get("Policies", []):
            found.extend(policy["PolicyDocument"]["Statement"])
        for policy in self.of_type("AWS::IAM::Policy").values():
            if {"Ref": role_id} in policy["Properties"].get("Roles", []):
                found.extend(policy["Properties"]["PolicyDocument"]["Statement"])
        return found


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    from aws_cdk.assertions import Template

    outdir = tmp_path_factory.mktemp("cdk.out")
    app, stack = load_cdk_app().build(context=CONTEXT, outdir=str(outdir))
    app.synth()  # raises if cdk-nag reports an unacknowledged finding
    assertions = Template.from_stack(stack)
    return Synth(app, stack, outdir, assertions.to_json(), assertions)


@pytest.fixture(scope="session")
def validation_report(synth: Synth) -> dict[str, Any]:
    return json.loads((synth.outdir / "validation-report.json").read_text())
