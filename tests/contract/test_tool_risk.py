"""Tools declare the blast radius the API enforces: a tool is destructive exactly when its route can demand a
confirmation token, read from the route handlers themselves (not from the OpenAPI document the tools are built
from)."""

from __future__ import annotations

import typing
from typing import Any

import pytest
from pydantic import BaseModel

from api.app import build, openapi_document
from mcp_server.tools import CONFIRMATION_NOTE, ToolSpec, tools_from_openapi

TOKEN = "confirmationToken"


def _accepts_token(hint: Any) -> bool:
    """A handler parameter that carries a confirmation token: the query parameter, or a body model's field."""
    for candidate in (hint, *typing.get_args(hint)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel) and TOKEN in candidate.model_fields:
            return True
    return False


def routes_that_demand_confirmation() -> dict[str, bool]:
    """operationId → whether the API route can answer "confirm first" (it takes a confirmation token)."""
    demands = {}
    app = build()
    for route in app._static_routes + app._dynamic_routes:
        if not route.include_in_schema or route.operation_id is None:
            continue
        hints = typing.get_type_hints(route.func, include_extras=True)
        demands[route.operation_id] = TOKEN in hints or any(_accepts_token(hint) for hint in hints.values())
    return demands


@pytest.fixture(scope="module")
def specs() -> dict[str, ToolSpec]:
    return {spec.name: spec for spec in tools_from_openapi(openapi_document())}


def test_every_tool_is_destructive_exactly_when_its_route_can_demand_a_confirmation_token(specs):
    demands = routes_that_demand_confirmation()
    assert set(demands) == set(specs)
    for name, spec in specs.items():
        assert spec.annotations.destructive_hint == demands[name], name


@pytest.mark.parametrize(
    "name",
    [
        "hyperpod_update_instance_group",  # a scale-down below the current count terminates nodes
        "hyperpod_update_advanced_features",  # a disable deletes roles, add-ons, a bucket
        "hyperpod_update_software",  # nodes restart
        "hyperpod_node_reboot",  # the node's pods stop until it is back
        "hyperpod_node_replace",
        "hyperpod_node_delete",
        "hyperpod_node_batch_action",
        "hyperpod_delete_instance_group",
        "cluster_delete",
        "operation_resume",  # resuming a delete, a replace or a scale-down destroys as its start did
        "inference_update_deployment",  # scaling to zero replicas stops the model server
        "remediation_policy_put",  # a replacing policy destroys unhealthy nodes' volumes, no one asked each time
    ],
)
def test_what_terminates_deletes_or_restarts_is_destructive_and_asks_for_a_plan_first(specs, name):
    assert specs[name].annotations.destructive_hint, name
    assert CONFIRMATION_NOTE in specs[name].description


def test_a_tool_that_starts_new_work_on_every_call_is_not_idempotent(specs):
    for name in ("hyperpod_update_software", "hyperpod_node_reboot", "hyperpod_node_replace", "cluster_create_eks"):
        assert specs[name].annotations.idempotent_hint is False, name
    for name in ("hyperpod_update_instance_group", "hyperpod_update_advanced_features"):
        assert specs[name].annotations.idempotent_hint is True, f"{name}: an explicit diff repeated changes nothing"
