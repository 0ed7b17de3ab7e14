"""The recipes' last-values table: keyed by caller and recipe, reachable by the API alone."""

from __future__ import annotations

import json
from typing import Any

from infra.access.steps import STEP_GROUPS
from infra.stack import API_HANDLER, MCP_HANDLER

ENV_VAR = "IS_RECIPE_VALUES_TABLE"


def recipe_values_table(synth: Any) -> str:
    api = synth.functions_by_handler()[API_HANDLER]
    return str(synth.resources[api]["Properties"]["Environment"]["Variables"][ENV_VAR]["Ref"])


def dynamodb_statements(synth: Any, function_id: str) -> str:
    statements = synth.statements(synth.role_of(function_id))
    return json.dumps([s for s in statements if "dynamodb:" in json.dumps(s["Action"])])


def test_the_table_is_keyed_by_principal_and_recipe(synth: Any) -> None:
    props = synth.resources[recipe_values_table(synth)]["Properties"]

    assert {k["KeyType"]: k["AttributeName"] for k in props["KeySchema"]} == {"HASH": "principal", "RANGE": "recipe"}


def test_the_api_reads_and_writes_the_table_and_no_other_function_reaches_it(synth: Any) -> None:
    table = recipe_values_table(synth)

    assert table in dynamodb_statements(synth, synth.functions_by_handler()[API_HANDLER])
    others = [synth.functions_by_handler()[MCP_HANDLER], *(synth.step_function(group) for group in STEP_GROUPS)]
    for function_id in others:
        assert table not in dynamodb_statements(synth, function_id), function_id
