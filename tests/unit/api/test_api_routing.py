"""The API loads a router only for the requests it serves: the route table is complete and exact, the entry point
imports no router and no OpenAPI document machinery, and a request's path loads its own router alone."""

from __future__ import annotations

import os
import pkgutil
import re
import subprocess
import sys
from importlib import import_module

import pytest

import api.routers
from api.app import IAM_PREFIX, ROUTERS, allowed_methods, resolver_for, router_for

DOCUMENT_MODELS = "aws_lambda_powertools.event_handler.openapi.models"
ROUTER_MODULES = sorted(
    info.name
    for info in pkgutil.iter_modules(api.routers.__path__)
    if hasattr(import_module(f"api.routers.{info.name}"), "router")
)


def sample_path(rule: str) -> str:
    return re.sub(r"<[^>]+>", "demo", rule)


def imported_after(statement: str) -> set[str]:
    """The API's modules and Powertools' OpenAPI document models that `statement` leaves imported, fresh process."""
    prefixes = ("api.", DOCUMENT_MODELS)
    probe = f"import sys; {statement}; print(' '.join(m for m in sys.modules if m.startswith({prefixes!r})))"
    env = {**os.environ, "PYTHONPATH": "functions:."}
    output = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True).stdout
    return set(output.split())


def test_every_router_module_has_a_row_in_the_route_table():
    assert sorted(name for _, name in ROUTERS) == ROUTER_MODULES


@pytest.mark.parametrize("name", ROUTER_MODULES)
def test_every_route_of_a_router_is_served_by_that_router(name):
    rules = {rule for rule, *_ in import_module(f"api.routers.{name}").router._routes}
    assert rules
    for rule in rules:
        assert router_for(sample_path(rule)) == name, rule
        assert router_for(IAM_PREFIX + sample_path(rule)) == name, rule


def test_documents_and_unknown_paths_are_served_by_the_complete_app():
    for path in ("/openapi.json", "/docs", "/no/such/route", "/", IAM_PREFIX):
        assert router_for(path) is None, path
    app = resolver_for("/openapi.json")
    served = {route.func for route in app._static_routes + app._dynamic_routes}
    for name in ROUTER_MODULES:
        assert set(import_module(f"api.routers.{name}").router._routes.values()) <= served, name


def test_importing_the_entry_point_loads_no_router_and_no_document_models():
    loaded = imported_after("import api.handler")
    assert not {module.removeprefix("api.routers.") for module in loaded} & set(ROUTER_MODULES)
    assert DOCUMENT_MODELS not in loaded


def test_a_request_path_loads_only_the_router_that_serves_it_and_no_document_models():
    loaded = imported_after("from api import app; app.resolver_for('/iam/clusters/demo/nodes/i-0abc/reboot')")
    assert {module.removeprefix("api.routers.") for module in loaded} & set(ROUTER_MODULES) == {"nodes"}
    assert DOCUMENT_MODELS not in loaded


def test_a_known_path_names_the_methods_its_routes_take():
    assert allowed_methods("/clusters") == ["GET", "POST"]
    assert allowed_methods(IAM_PREFIX + "/clusters/demo/deployments/web") == ["DELETE", "GET", "PATCH"]
    assert allowed_methods("/clusters/demo/no-such-thing") == []
    assert allowed_methods("/no/such/route") == []
