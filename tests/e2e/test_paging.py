"""Every list route pages through the real API handler: honest `continue` tokens, no gaps or repeats, unknown
query parameters refused with a 400 that names the allowed ones, and a token a list cannot continue from refused with
a 400: one that is not a token, and one the cluster has forgotten (which says to start again)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from api.app import openapi_document
from controlplane.adapters.aws.dynamo.operations import DynamoOperationRepository
from controlplane.adapters.aws.dynamo.registry import DynamoClusterRegistry
from controlplane.core.paging import decode_token, encode_token
from controlplane.models.clusters import ClusterRecord, ClusterStatus
from controlplane.models.operations import Operation, OperationKind, Stage
from controlplane.settings import settings
from sandbox.k8s.emulator import CONTINUE_LIFETIME_SECONDS
from tests.conftest import aws_client

START = datetime(2026, 1, 1, tzinfo=UTC)


def seed_operations(cluster_tag: str, count: int) -> set[str]:
    """`count` operations of the cluster, stored as the repository stores them, 25 to a batch write (a thousand
    conditional puts cost ten times the CPU, and the list reads the table all the same)."""
    operations = []
    for index in range(count):
        # Three operations share each second, so the pages cross ties in the index's sort key.
        created = START + timedelta(seconds=index // 3)
        operations.append(
            Operation(
                operationId=f"op-{cluster_tag}-{index:06d}",
                kind=OperationKind.CREATE_EKS_CLUSTER,
                target=cluster_tag,
                incarnation="inc-1",
                stages=[Stage(name="network")],
                actor="seed",
                createdAt=created,
                updatedAt=created,
            )
        )
    table = settings().operations_table
    for start in range(0, count, 25):
        batch = [{"PutRequest": {"Item": DynamoOperationRepository._item(op)}} for op in operations[start : start + 25]]
        assert not aws_client("dynamodb").batch_write_item(RequestItems={table: batch})["UnprocessedItems"]
    return {operation.operationId for operation in operations}


def pages(api, path: str, key: str, params: dict[str, object]) -> list[list[dict]]:
    found = []
    token = None
    while True:
        body = api.get(path, params={**params, **({"continue": token} if token else {})}).json()
        found.append(body[key])
        token = body.get("continue")
        if token is None:
            return found


def test_operations_page_through_a_thousand_with_no_gaps_or_repeats(running_sandbox):
    seeded = seed_operations("paged", 1000)
    with running_sandbox.client("sandbox-viewer") as api:
        listed = pages(api, "/operations", "operations", {"clusterTag": "paged", "limit": 20})

    ids = [operation["operationId"] for page in listed for operation in page]
    assert len(listed) == 50
    assert all(len(page) == 20 for page in listed)
    assert len(ids) == len(set(ids)) == 1000
    assert set(ids) == seeded
    created = [operation["createdAt"] for page in listed for operation in page]
    assert created == sorted(created, reverse=True)


def test_the_last_page_of_operations_has_no_continue(running_sandbox):
    seed_operations("exact", 40)
    with running_sandbox.client("sandbox-viewer") as api:
        listed = pages(api, "/operations", "operations", {"clusterTag": "exact", "limit": 20})
        single = api.get("/operations", params={"clusterTag": "exact"}).json()

    assert [len(page) for page in listed] == [20, 20]
    assert len(single["operations"]) == 40
    assert single.get("continue") is None


def test_clusters_page_by_tag(running_sandbox):
    registry = DynamoClusterRegistry(settings().clusters_table)
    for index in range(7):
        registry.create(
            ClusterRecord(
                clusterTag=f"page-{index}",
                incarnation=f"inc-{index}",
                region="us-west-2",
                status=ClusterStatus.ACTIVE,
                eksClusterName=f"eks-cluster-page-{index}",
                createdAt=START,
                updatedAt=START,
                createdBy="seed",
            )
        )
    with running_sandbox.client("sandbox-viewer") as api:
        listed = pages(api, "/clusters", "clusters", {"limit": 3})
        everything = api.get("/clusters").json()

    tags = [cluster["clusterTag"] for page in listed for cluster in page]
    assert tags == sorted(tags)
    assert len(tags) == len(set(tags)) == len(everything["clusters"])
    assert {f"page-{index}" for index in range(7)} <= set(tags)
    assert all(len(page) == 3 for page in listed[:-1])
    assert everything.get("continue") is None


def test_unknown_query_parameters_are_refused_naming_the_allowed_ones(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        operations = api.get("/operations", params={"clusterTag": "paged", "nextToken": "x"})
        clusters = api.get("/clusters", params={"pageSize": 5})

    assert operations.status_code == 400
    assert operations.json()["code"] == "InvalidRequest"
    assert operations.json()["details"] == {"unknown": ["nextToken"], "allowed": ["clusterTag", "limit", "continue"]}
    assert clusters.status_code == 400
    assert "limit, continue" in clusters.json()["message"]


def test_a_token_that_is_not_ours_is_refused_and_limits_are_bounded(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        forged = api.get("/operations", params={"clusterTag": "paged", "continue": "bm90IG91cnM"})
        too_many = api.get("/clusters", params={"limit": 1000})

    assert forged.status_code == 400
    assert "continue token" in forged.json()["message"]
    assert too_many.status_code == 400


# --- tokens a list cannot continue from (issue 29, finding 6) ---

LISTED = "listed"
FILTERS = {"/operations": {"clusterTag": LISTED}}  # the lists that need a filter


@pytest.fixture(scope="module")
def listed_cluster(running_sandbox) -> dict[str, str]:
    """A cluster with every stage, storage included; its path parameters by name."""
    running_sandbox.build_cluster(LISTED, storage=True)
    with running_sandbox.client("sandbox-viewer") as api:
        node = api.get(f"/clusters/{LISTED}/nodes").json()["nodes"][0]["nodeId"]
    return {"clusterTag": LISTED, "nodeId": node}


def list_paths(parameters: dict[str, str]) -> list[str]:
    """Every route that pages (takes `continue`), by the document."""
    return [
        path.format(**parameters)
        for path, methods in openapi_document()["paths"].items()
        if any(parameter["name"] == "continue" for parameter in methods.get("get", {}).get("parameters", []))
    ]


def test_every_list_refuses_a_continue_token_that_is_not_one(running_sandbox, listed_cluster):
    # A token of ours wrapping one the cluster cannot read (the jobs' and endpoints' lists wrap Kubernetes' own).
    for token in ("garbage", encode_token([0, "garbage"])):
        with running_sandbox.client("sandbox-admin") as api:
            refused = {
                path: api.get(path, params={"continue": token, **FILTERS.get(path, {})})
                for path in list_paths(listed_cluster)
            }
        assert len(refused) >= 16
        answers = {path: (response.status_code, response.json()["code"]) for path, response in refused.items()}
        assert set(answers.values()) == {(400, "InvalidRequest")}, (token, answers)
        assert all("continue token is not valid" in response.json()["message"] for response in refused.values())


def test_a_page_the_cluster_has_forgotten_says_to_start_again_from_the_first(running_sandbox, listed_cluster):
    path = f"/clusters/{LISTED}/pods"
    emulator = running_sandbox.sandbox.emulator
    with running_sandbox.client("sandbox-viewer") as api:
        first = api.get(path, params={"limit": 1}).json()
        assert api.get(path, params={"limit": 1, "continue": first["continue"]}).status_code == 200
        emulator.set_continue_lifetime(0)
        try:
            expired = api.get(path, params={"limit": 1, "continue": first["continue"]})
        finally:
            emulator.set_continue_lifetime(CONTINUE_LIFETIME_SECONDS)
        again = api.get(path, params={"limit": 1})

    assert (expired.status_code, expired.json()["code"]) == (400, "ContinueTokenExpired")
    assert "first page" in expired.json()["message"]
    assert again.json()["pods"] == first["pods"]


def test_the_claims_contents_page_with_a_token_of_ours_not_s3s(running_sandbox, listed_cluster):
    bucket = f"instantstart-{LISTED}-123456789012-us-west-2"
    for key in ("models/a", "models/b", "models/c"):
        aws_client("s3", "us-west-2").put_object(Bucket=bucket, Key=key, Body=b"x")
    path = f"/clusters/{LISTED}/storage/contents"
    with running_sandbox.client("sandbox-viewer") as api:
        listed = pages(api, path, "objects", {"prefix": "models/", "limit": 2})
        first = api.get(path, params={"prefix": "models/", "limit": 2}).json()
    assert [[item["key"] for item in page] for page in listed] == [["models/a", "models/b"], ["models/c"]]
    assert decode_token(first["continue"])
