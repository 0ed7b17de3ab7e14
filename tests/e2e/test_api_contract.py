"""The REST API through the sandbox's front door: authentication, roles, bad input, plans, idempotency."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import aws_client
from tests.inventory import stage1_inventory


def vpc_count() -> int:
    return len(aws_client("ec2", region_name="us-west-2").describe_vpcs()["Vpcs"])


def execution_count() -> int:
    sfn = aws_client("stepfunctions", region_name="us-east-1")
    return sum(
        len(sfn.list_executions(stateMachineArn=machine["stateMachineArn"])["executions"])
        for machine in sfn.list_state_machines()["stateMachines"]
    )


def assert_error_body(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code
    assert body["message"] and body["requestId"]
    assert "Traceback" not in response.text
    return body


def test_requests_without_a_token_are_refused_with_401(running_sandbox):
    with running_sandbox.client(token=None) as api:
        assert api.get("/clusters").status_code == 401
        assert api.post("/clusters/eks", json={"clusterTag": "noauth", "region": "us-west-2"}).status_code == 401
    with running_sandbox.client(token="forged") as api:
        assert api.get("/clusters").status_code == 401


def test_a_viewer_can_read_but_not_create(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.get("/clusters").status_code == 200
        body = assert_error_body(
            api.post("/clusters/eks", json={"clusterTag": "viewer", "region": "us-west-2"}), 403, "Forbidden"
        )
    assert "admin" in body["message"]
    with running_sandbox.client("sandbox-operator") as api:
        assert_error_body(
            api.post("/clusters/eks", json={"clusterTag": "oper", "region": "us-west-2"}), 403, "Forbidden"
        )
    assert stage1_inventory("viewer")["vpcs"] == 0


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"clusterTag": "Bad_Tag", "region": "us-west-2"}, "clusterTag"),
        ({"clusterTag": "okname", "region": "us-west-2", "extra": 1}, "extra: unknown field"),
        ({"region": "us-west-2"}, "clusterTag"),
        ({"clusterTag": "okname", "region": "not a region"}, "region"),
        ({"clusterTag": "okname", "region": "us-west-2", "vpcCidr": "300.1.0.0/16"}, "vpcCidr"),
    ],
)
def test_invalid_bodies_get_400_naming_the_field_and_create_nothing(running_sandbox, body, fragment):
    before = vpc_count()
    with running_sandbox.client() as api:
        error = assert_error_body(api.post("/clusters/eks", json=body), 400, "InvalidRequest")
    assert fragment in error["message"]
    assert vpc_count() == before


def test_malformed_json_gets_400(running_sandbox):
    with running_sandbox.client() as api:
        response = api.post("/clusters/eks", content=b'{"clusterTag": ', headers={"content-type": "application/json"})
    assert_error_body(response, 400, "InvalidRequest")


def test_unknown_region_gets_400_and_creates_nothing(running_sandbox):
    before = vpc_count()
    with running_sandbox.client() as api:
        body = assert_error_body(
            api.post("/clusters/eks", json={"clusterTag": "nowhere", "region": "xx-nowhere-1"}), 400, "UnknownRegion"
        )
    assert "us-west-2" in body["message"]
    assert vpc_count() == before


def test_an_overlapping_cidr_gets_400_naming_the_vpc(running_sandbox):
    existing = aws_client("ec2", region_name="us-west-2").create_vpc(CidrBlock="10.77.0.0/16")["Vpc"]["VpcId"]
    before = vpc_count()
    with running_sandbox.client() as api:
        body = assert_error_body(
            api.post("/clusters/eks", json={"clusterTag": "overlap", "region": "us-west-2", "vpcCidr": "10.77.0.0/16"}),
            400,
            "CidrConflict",
        )
    assert existing in body["message"]
    assert vpc_count() == before


def test_dry_run_returns_the_plan_and_creates_nothing(running_sandbox):
    before = (vpc_count(), execution_count())
    with running_sandbox.client() as api:
        response = api.post(
            "/clusters/eks",
            params={"dryRun": "true"},
            json={"clusterTag": "dryrun", "region": "us-west-2", "vpcCidr": "10.66.0.0/16"},
        )
        assert response.status_code == 200, response.text
        assert api.get("/clusters/dryrun").status_code == 404
    plan = response.json()
    assert plan["dryRun"] is True
    resources = [action["resource"] for action in plan["actions"]]
    assert resources.count("AWS::EC2::Subnet") == 4
    assert "AWS::EKS::Cluster" in resources
    assert (vpc_count(), execution_count()) == before


def test_a_taken_cluster_tag_gets_409(running_sandbox):
    with running_sandbox.client() as api:
        first = api.post("/clusters/eks", json={"clusterTag": "twice", "region": "us-west-2"})
        assert first.status_code == 202
        assert_error_body(
            api.post("/clusters/eks", json={"clusterTag": "twice", "region": "us-west-2"}), 409, "ClusterExists"
        )
    running_sandbox.wait_terminal(first.json()["operationId"])


def test_fifty_concurrent_identical_requests_with_one_key_start_one_workflow(running_sandbox):
    before = execution_count()
    headers = {"Idempotency-Key": "same-key-50"}
    body = {"clusterTag": "idem", "region": "us-west-2"}

    def send(_: int):
        with running_sandbox.client() as api:
            return api.post("/clusters/eks", json=body, headers=headers)

    with ThreadPoolExecutor(max_workers=50) as pool:
        responses = list(pool.map(send, range(50)))
    statuses = sorted({r.status_code for r in responses})
    assert set(statuses) <= {202, 409}, [r.text for r in responses if r.status_code not in (202, 409)]
    accepted_ids = {r.json()["operationId"] for r in responses if r.status_code == 202}
    assert len(accepted_ids) == 1
    assert all(r.json()["code"] == "RequestInProgress" for r in responses if r.status_code == 409)
    assert execution_count() == before + 1
    with running_sandbox.client() as api:
        replay = api.post("/clusters/eks", json=body, headers=headers)
    assert replay.status_code == 202
    assert replay.json()["operationId"] in accepted_ids
    running_sandbox.wait_terminal(replay.json()["operationId"])


def test_the_same_key_with_another_body_gets_409(running_sandbox):
    with running_sandbox.client() as api:
        first = api.post(
            "/clusters/eks",
            json={"clusterTag": "keyone", "region": "us-west-2"},
            headers={"Idempotency-Key": "k-reused"},
        )
        assert first.status_code == 202
        assert_error_body(
            api.post(
                "/clusters/eks",
                json={"clusterTag": "keytwo", "region": "us-west-2"},
                headers={"Idempotency-Key": "k-reused"},
            ),
            409,
            "IdempotencyKeyReused",
        )
    assert stage1_inventory("keytwo")["vpcs"] == 0
    running_sandbox.wait_terminal(first.json()["operationId"])


def test_every_mutating_request_is_audited(running_sandbox):
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "audited", "region": "us-west-2"}).json()
        api.post("/clusters/eks", json={"clusterTag": "audited", "region": "us-west-2"})
    from controlplane import wiring

    entries = wiring.audit_log().list_for_target("audited")
    assert [(e.actor, e.action, e.outcome) for e in entries] == [
        ("sandbox-admin", "POST /clusters/eks", "202"),
        ("sandbox-admin", "POST /clusters/eks", "409"),
    ]
    assert entries[0].operationId == accepted["operationId"]
    assert all(e.requestId for e in entries)
    running_sandbox.wait_terminal(accepted["operationId"])


def test_operations_are_listed_per_cluster_and_unknown_ones_are_404(running_sandbox):
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "listed", "region": "us-west-2"}).json()
        listed = api.get("/operations", params={"clusterTag": "listed"}).json()["operations"]
        assert [op["operationId"] for op in listed] == [accepted["operationId"]]
        assert_error_body(api.get("/operations/op-doesnotexist0000"), 404, "OperationNotFound")
        assert_error_body(api.get("/operations/not-an-id"), 400, "InvalidRequest")
        assert_error_body(
            api.get(f"/operations/{accepted['operationId']}/wait", params={"timeoutSeconds": 99}), 400, "InvalidRequest"
        )
    running_sandbox.wait_terminal(accepted["operationId"])


def test_cancel_stops_a_running_operation_which_can_then_be_resumed(running_sandbox):
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "cancelme", "region": "us-west-2"}).json()
        cancelled = api.post(f"/operations/{accepted['operationId']}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["status"] == "CANCELLED"
        assert_error_body(api.post(f"/operations/{accepted['operationId']}/cancel"), 409, "OperationStateConflict")
        assert api.post(f"/operations/{accepted['operationId']}/resume").status_code == 202
    assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"


def test_openapi_and_swagger_ui_are_served(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        document = api.get("/openapi.json")
        docs = api.get("/docs")
    assert document.status_code == 200
    assert "/clusters/eks" in document.json()["paths"]
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()


def test_a_claimed_on_behalf_of_from_anyone_but_the_mcp_server_is_neither_honoured_nor_recorded(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        refused = api.post(
            "/clusters/eks",
            json={"clusterTag": "onbehalf", "region": "us-west-2"},
            headers={"X-InstantStart-On-Behalf-Of": '{"principal": "root", "source": "cognito", "groups": ["admin"]}'},
        )
    assert refused.status_code == 403
    from controlplane import wiring

    (entry,) = wiring.audit_log().list_for_target("onbehalf")
    assert (entry.actor, entry.onBehalfOf, entry.outcome) == ("sandbox-viewer", None, "403")
