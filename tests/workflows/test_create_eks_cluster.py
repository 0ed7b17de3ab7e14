"""Stage 1 end to end on the real ASL, the real steps, moto and the Kubernetes emulator."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from controlplane.core.naming import VIEWERS_GROUP
from controlplane.models.operations import OperationKind
from controlplane.settings import settings
from controlplane.workflows import step_key
from tests.conftest import aws_client
from tests.inventory import COMPLETE_STAGE1, stage1_inventory
from tests.workflows.faults import fail_each_step_in_turn, resume


def create(running_sandbox, tag: str) -> dict:
    with running_sandbox.client() as api:
        response = api.post("/clusters/eks", json={"clusterTag": tag, "region": "us-west-2"})
    assert response.status_code == 202, response.text
    return response.json()


def test_create_reaches_succeeded_with_stages_in_order_and_timestamps(running_sandbox):
    accepted = create(running_sandbox, "golden")
    assert accepted["stages"] == ["network", "iam", "eks-control-plane", "cluster-access", "kubernetes-api", "events"]
    operation = running_sandbox.wait_terminal(accepted["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    started = [stage["startedAt"] for stage in operation["stages"]]
    assert all(stage["status"] == "SUCCEEDED" and stage["endedAt"] for stage in operation["stages"])
    assert started == sorted(started)
    assert stage1_inventory("golden") == COMPLETE_STAGE1
    with running_sandbox.client("sandbox-viewer") as api:
        cluster = api.get("/clusters/golden").json()
    assert cluster["status"] == "ACTIVE"
    assert cluster["stagesDone"] == ["eks"]


def test_the_eks_cluster_is_created_with_the_authentication_mode_hyperpod_needs(running_sandbox):

    accepted = create(running_sandbox, "authmode")
    assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
    cluster = aws_client("eks", region_name="us-west-2").describe_cluster(name="eks-cluster-authmode")["cluster"]
    assert cluster["accessConfig"]["authenticationMode"] == "API_AND_CONFIG_MAP"
    assert cluster["tags"]["instantstart:managed-by"] == "instantstart"
    # The cluster lives in us-west-2; the deployment that owns it runs in the sandbox's home Region.
    assert cluster["tags"]["instantstart:deployment-region"] == "us-east-1"


def test_every_step_fails_once_in_turn_naming_itself_and_resume_completes_the_one_operation(running_sandbox):
    fail_each_step_in_turn(
        running_sandbox, OperationKind.CREATE_EKS_CLUSTER, lambda: create(running_sandbox, "faults")["operationId"]
    )
    assert stage1_inventory("faults") == COMPLETE_STAGE1


class ResponseLostError(Exception):
    """The call succeeded in AWS, but the step never saw the answer (a crash after the side effect)."""


# Each call's response lost once, in the order the workflow makes the calls.
LOST_RESPONSES = [
    "after-call.ec2.CreateVpc",
    "after-call.ec2.CreateSubnet",
    "after-call.ec2.CreateNatGateway",
    "after-call.ec2.CreateRouteTable",
    "after-call.iam.CreateRole",
    "after-call.eks.CreateCluster",
    "after-call.eks.CreateAccessEntry",
]


@contextmanager
def response_lost_once(event: str) -> Iterator[list[str]]:
    """The first response of the call `event` names is lost (the events it fired on are listed)."""
    from controlplane.adapters.aws import session

    fired: list[str] = []

    def lose_response(**kwargs):
        if not fired:
            fired.append(event)
            raise ResponseLostError(f"response of {event} lost")

    events = session.session().events
    events.register(event, lose_response, unique_id="lose-response")
    session._client.cache_clear()
    try:
        yield fired
    finally:
        events.unregister(event, unique_id="lose-response")
        session._client.cache_clear()


def test_a_crash_after_each_side_effect_in_turn_then_resume_creates_no_duplicates(running_sandbox):
    operation_id = ""
    for event in LOST_RESPONSES:
        with response_lost_once(event) as fired:
            if operation_id:
                with running_sandbox.client() as api:
                    assert api.post(f"/operations/{operation_id}/resume").status_code == 202
            else:
                operation_id = create(running_sandbox, "crashes")["operationId"]
            failed = running_sandbox.wait_terminal(operation_id)
        assert fired == [event]
        assert (failed["status"], failed["error"]["code"]) == ("FAILED", "ResponseLostError"), (event, failed)
    with running_sandbox.client() as api:
        assert api.post(f"/operations/{operation_id}/resume").status_code == 202
    done = running_sandbox.wait_terminal(operation_id)
    assert done["status"] == "SUCCEEDED", done.get("error")
    assert stage1_inventory("crashes") == COMPLETE_STAGE1


MUTATING_PREFIXES = (
    "Create",
    "Update",
    "Delete",
    "Put",
    "Attach",
    "Associate",
    "Allocate",
    "Modify",
    "Authorize",
    "Replace",
    "Tag",
    "Release",
    "Detach",
    "Disassociate",
)


def test_a_second_reconcile_of_every_create_step_makes_no_mutating_call(running_sandbox):
    from controlplane import wiring
    from controlplane.adapters.aws import session
    from controlplane.models.workflow import parse_input

    accepted = create(running_sandbox, "noop")
    assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
    ctx = parse_input(wiring.operations().get(accepted["operationId"]).input)
    stack = wiring.eks_stack(ctx.region)
    calls: list[str] = []

    def record(event_name: str, **kwargs):
        calls.append(event_name.split(".", 2)[2])

    events = session.session().events
    events.register("before-call.*.*", record, unique_id="record-calls")
    session._client.cache_clear()
    try:
        for step in (
            stack.ensure_vpc,
            stack.ensure_subnets,
            stack.ensure_internet_gateway,
            stack.ensure_nat_gateway,
            stack.ensure_route_tables,
            stack.ensure_s3_endpoint,
            stack.ensure_security_group,
            stack.ensure_cluster_role,
            stack.create_eks_cluster,
            stack.ensure_access_entry,
            stack.verify_kubernetes_api,
        ):
            step(ctx)
    finally:
        events.unregister("before-call.*.*", unique_id="record-calls")
        session._client.cache_clear()
    assert calls, "the steps observed the account"
    assert [call for call in calls if call.startswith(MUTATING_PREFIXES)] == []
    assert stage1_inventory("noop") == COMPLETE_STAGE1


def test_the_api_reads_the_cluster_through_a_view_entry_that_refuses_every_write(running_sandbox):
    """Item 10 of issue 11: the internet-facing API signs as the view role; its access entry cannot write."""
    from kubernetes.client import CoreV1Api
    from kubernetes.client.exceptions import ApiException

    from controlplane import wiring
    from controlplane.adapters.aws.eks import AwsEksGateway

    accepted = create(running_sandbox, "viewonly")
    assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.get("/clusters/viewonly/status").status_code == 200
    cluster = AwsEksGateway("us-west-2").find_cluster("eks-cluster-viewonly")
    reader = CoreV1Api(wiring.kubernetes_readers().api_client(cluster, "us-west-2"))
    assert reader.list_namespace().items
    namespace = {"metadata": {"name": "written-by-the-api"}}
    with pytest.raises(ApiException) as refused:
        reader.create_namespace(namespace)
    assert refused.value.status == 403
    with pytest.raises(ApiException) as refused_delete:
        reader.delete_namespace("default")
    assert refused_delete.value.status == 403
    CoreV1Api(wiring.kubernetes_clients().api_client(cluster, "us-west-2")).create_namespace(namespace)


def test_a_view_entry_made_before_the_viewers_group_gets_it_when_stage_1_runs_again(running_sandbox):
    running_sandbox.sandbox.add_fault(step_key("Verify Kubernetes API"), 1)
    operation_id = create(running_sandbox, "viewers")["operationId"]
    assert running_sandbox.wait_terminal(operation_id)["status"] == "FAILED"
    eks = aws_client("eks", region_name="us-west-2")
    view = {"clusterName": "eks-cluster-viewers", "principalArn": settings().kubernetes_view_role_arn}
    eks.update_access_entry(**view, kubernetesGroups=[])

    resume(running_sandbox, operation_id)

    assert running_sandbox.wait_terminal(operation_id)["status"] == "SUCCEEDED"
    assert eks.describe_access_entry(**view)["accessEntry"]["kubernetesGroups"] == [VIEWERS_GROUP]
