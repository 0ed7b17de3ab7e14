"""The route permission table: complete, and escalating where a request does more."""

from api.app import openapi_document
from api.authorization import PERMISSIONS, READ, Permission, RouteRequest, required
from controlplane.core.auth import Role


def request(body=None):
    return lambda: RouteRequest(body=body or {})


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


def test_routes_outside_the_table_need_an_authenticated_caller():
    assert required("GET", "/docs", request()) == READ
    assert required("POST", "/no/such/route", request()) == READ


def test_storage_needs_an_operator_and_an_admin_only_to_create_an_fsx_file_system_even_in_a_plan():
    route = "/clusters/{clusterTag}/storage"
    assert required("POST", route, request({"bucketName": "data"})).role == Role.OPERATOR
    fsx = required("POST", route, request({"fsx": {}}))
    assert fsx == Permission(Role.ADMIN, "create an FSx file system (it enables the fsxCsiDriver feature)")


def test_a_node_batch_needs_an_admin_only_to_replace_or_delete():
    route = "/clusters/{clusterTag}/nodes/batch"
    assert required("POST", route, request({"action": "reboot"})) == Permission(Role.OPERATOR, "reboot nodes")
    assert required("POST", route, request({"action": "replace"})) == Permission(Role.ADMIN, "replace nodes")
    assert required("POST", route, request({"action": "delete"})).role == Role.ADMIN


def test_a_fixed_permission_never_reads_the_request():
    def unread():
        raise AssertionError("read")

    assert required("DELETE", "/clusters/{clusterTag}", unread) == Permission(Role.ADMIN, "delete a cluster")
