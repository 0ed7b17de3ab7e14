"""The permissions the routes declare: one for every route, and escalating where a request does more."""

import json
import pkgutil
from importlib import import_module

import pytest

import api.routers
from api.app import handle, openapi_document
from api.authorization import READ, Permission, RouteRequest, Routes, Rule, required
from controlplane.core.auth import Role

ROUTERS = [
    module.router
    for module in (import_module(f"api.routers.{info.name}") for info in pkgutil.iter_modules(api.routers.__path__))
    if hasattr(module, "router")
]
PERMISSIONS: dict[str, Rule] = {route: rule for router in ROUTERS for route, rule in router.permissions.items()}


def request(body=None):
    return lambda: RouteRequest(body=body or {})


def test_every_router_declares_who_may_call_each_of_its_routes():
    assert ROUTERS
    assert all(isinstance(router, Routes) for router in ROUTERS)


def test_every_documented_route_has_exactly_one_permission():
    documented = {
        f"{method.upper()} {path}" for path, methods in openapi_document()["paths"].items() for method in methods
    }
    assert documented == set(PERMISSIONS)


def test_reads_need_a_viewer_but_the_audit_trail_and_every_mutation_more():
    # The audit trail names people and their refused requests: it is for those who act on clusters.
    assert PERMISSIONS["GET /audit"] == Permission(Role.OPERATOR, "read the audit trail")
    for route, rule in PERMISSIONS.items():
        if route == "GET /audit":
            continue
        if route.startswith("GET "):
            assert rule == READ, route
        else:
            assert callable(rule) or rule.role > Role.VIEWER, route


def call(path: str, role: str | None) -> dict:
    claims = {"cognito:username": "someone", "cognito:groups": role} if role else None
    context = {"requestId": "r-1", "stage": "v1", "path": f"/v1{path}", "identity": {}}
    event = {
        "path": path,
        "httpMethod": "GET",
        "headers": {},
        "requestContext": {**context, "authorizer": {"claims": claims} if claims else None},
    }
    return handle(event, None)


@pytest.mark.parametrize("path", ["/docs", "/openapi.json", "/no/such/route"])
def test_routes_that_declare_nothing_need_an_authenticated_caller(path):
    refused = call(path, None)
    assert (refused["statusCode"], json.loads(refused["body"])["code"]) == (401, "Unauthenticated")
    assert call(path, "viewer")["statusCode"] in (200, 404)


def test_storage_needs_an_operator_and_an_admin_only_to_create_an_fsx_file_system_even_in_a_plan():
    rule = PERMISSIONS["POST /clusters/{clusterTag}/storage"]
    assert required(rule, request({"bucketName": "data"})).role == Role.OPERATOR
    fsx = required(rule, request({"fsx": {}}))
    assert fsx == Permission(Role.ADMIN, "create an FSx file system (it enables the fsxCsiDriver feature)")


def test_a_node_batch_needs_an_admin_only_to_replace_or_delete():
    rule = PERMISSIONS["POST /clusters/{clusterTag}/nodes/batch"]
    assert required(rule, request({"action": "reboot"})) == Permission(Role.OPERATOR, "reboot nodes")
    assert required(rule, request({"action": "replace"})) == Permission(Role.ADMIN, "replace nodes")
    assert required(rule, request({"action": "delete"})).role == Role.ADMIN


def test_a_fixed_permission_never_reads_the_request():
    def unread():
        raise AssertionError("read")

    rule = PERMISSIONS["DELETE /clusters/{clusterTag}"]
    assert required(rule, unread) == Permission(Role.ADMIN, "delete a cluster")
