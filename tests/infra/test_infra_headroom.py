"""Every synthesized template, root and nested, stays at or under 60 % of CloudFormation's per-template quotas, so
that the next workflows and steps fit without touching the layout. Bytes are the template file as cdk.out holds it
(what `cdk deploy` uploads). `pytest tests/infra/test_infra_headroom.py -s` prints the figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controlplane.models.operations import OperationKind
from infra.api_function import API_HANDLER
from infra.drift import RECONCILE_HANDLER
from infra.events import EVENTS_HANDLER
from infra.mcp import MCP_HANDLER
from infra.state_machines import WORKFLOW_FAMILIES
from infra.websocket import AUTHORIZER_HANDLER as WS_AUTHORIZER_HANDLER
from infra.websocket import HANDLER as WS_HANDLER

# CloudFormation quotas per template (the template body's size is that of a template uploaded to S3).
LIMITS = {"resources": 500, "bytes": 1_048_576, "parameters": 200, "outputs": 200}
HEADROOM = 0.60


def usage(path: Path) -> dict[str, int]:
    template = json.loads(path.read_text())
    return {
        "resources": len(template["Resources"]),
        "bytes": path.stat().st_size,
        "parameters": len(template.get("Parameters", {})),
        "outputs": len(template.get("Outputs", {})),
    }


def test_every_template_keeps_headroom_under_cloudformation_limits(synth: Any) -> None:
    figures = {path.name: usage(path) for path in synth.template_paths}
    print()
    for name, used in figures.items():
        cells = [f"{quota} {count:,}/{LIMITS[quota]:,} ({count / LIMITS[quota]:.1%})" for quota, count in used.items()]
        print(f"{name}: " + ", ".join(cells))
    over = {
        (name, quota): count
        for name, used in figures.items()
        for quota, count in used.items()
        if count > HEADROOM * LIMITS[quota]
    }
    assert over == {}, f"above {HEADROOM:.0%} of CloudFormation's limits"


def test_every_workflow_is_in_exactly_one_family() -> None:
    kinds = [kind for family in WORKFLOW_FAMILIES.values() for kind in family]
    assert sorted(kinds) == sorted(OperationKind)


def test_workflows_and_step_lambdas_live_in_nested_stacks(synth: Any) -> None:
    """The root keeps what every face shares (tables, identities, API, MCP, live logs, HyperPod events in) and the
    scheduled drift reconcile; each workflow family and the step Lambda functions have a template of their own."""
    root, *nested = synth.template_paths
    assert len(nested) == len(WORKFLOW_FAMILIES) + 1
    resources = json.loads(root.read_text())["Resources"]
    assert not [key for key, r in resources.items() if r["Type"] == "AWS::StepFunctions::StateMachine"]
    handlers = {props["Properties"]["Handler"] for key, props in synth.functions().items() if key in resources}
    assert handlers == {
        API_HANDLER,
        MCP_HANDLER,
        RECONCILE_HANDLER,
        WS_HANDLER,
        WS_AUTHORIZER_HANDLER,
        EVENTS_HANDLER,
    }
