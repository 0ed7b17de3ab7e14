"""A team's namespace prepared for workloads in the sandbox: creating a team starts the operation that waits for the
add-on's namespace, copies the cluster's S3 claim into it (its own PV, bound to the same bucket with its own volume
handle) and the jobs' ServiceAccount with its pod identity association to the jobs role (whose trust admits team
namespaces); the team's view says the namespace is ready. A fault in every step, then resume. Deleting the team
removes exactly those copies and keeps the namespace."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

import pytest

from controlplane.models.operations import OperationKind
from tests.conftest import aws_client
from tests.workflows.confirm import confirmed
from tests.workflows.faults import fail_each_step_in_turn

TAG = "teamns"
REGION = "us-west-2"
CLAIM = "s3-claim"
ACCOUNT = "instantstart-jobs"
INSTANCE_TYPE = "ml.g6.4xlarge"
FEATURES = {"taskGovernance": {"enabled": True}, "trainingOperator": {"enabled": True}}


@pytest.fixture(scope="module")
def cluster(running_sandbox):
    running_sandbox.build_cluster(TAG, instances=2, storage=True, features=FEATURES)
    return running_sandbox


def store(cluster):
    return cluster.sandbox.emulator.store(f"eks-cluster-{TAG}")


def create_team(cluster, team: str) -> dict[str, Any]:
    body = {"team": team, "allocations": [{"instanceType": INSTANCE_TYPE, "count": 1}]}
    with cluster.client() as api:
        response = api.post(f"/clusters/{TAG}/teams", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def team_view(cluster, team: str) -> dict[str, Any]:
    with cluster.client("sandbox-viewer") as api:
        teams = api.get(f"/clusters/{TAG}/teams").json()["teams"]
    return next(view for view in teams if view["team"] == team)


def associations() -> list[str]:
    eks = aws_client("eks", region_name=REGION)
    found = eks.list_pod_identity_associations(clusterName=f"eks-cluster-{TAG}")["associations"]
    return sorted(f"{a['namespace']}/{a['serviceAccount']}" for a in found)


def test_creating_a_team_prepares_its_namespace_with_the_claim_and_the_jobs_identity(cluster):
    created = create_team(cluster, "ml-a")
    assert created["namespaceReady"] is False
    operation = cluster.wait_terminal(created["namespaceOperationId"])
    assert (operation["kind"], operation["status"]) == ("prepare_team_namespace", "SUCCEEDED"), operation.get("error")
    assert [stage["name"] for stage in operation["stages"]] == ["namespace", "claim", "identity", "verify"]
    assert operation["stages"][-1]["message"] == "Namespace hyperpod-ns-ml-a is ready for workloads"

    claim = store(cluster).get("", "v1", "persistentvolumeclaims", "hyperpod-ns-ml-a", CLAIM)
    assert claim["status"]["phase"] == "Bound"
    volume = store(cluster).get("", "v1", "persistentvolumes", None, claim["spec"]["volumeName"])
    original = store(cluster).get("", "v1", "persistentvolumes", None, f"pv-{TAG}-{CLAIM}")
    assert volume["spec"]["csi"]["volumeAttributes"] == original["spec"]["csi"]["volumeAttributes"]
    assert volume["spec"]["csi"]["volumeHandle"] != original["spec"]["csi"]["volumeHandle"]
    assert volume["spec"]["claimRef"] == {"namespace": "hyperpod-ns-ml-a", "name": CLAIM}
    assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    default_claim = store(cluster).get("", "v1", "persistentvolumeclaims", "default", CLAIM)
    assert default_claim["status"]["phase"] == "Bound"

    assert store(cluster).get("", "v1", "serviceaccounts", "hyperpod-ns-ml-a", ACCOUNT) is not None
    assert "hyperpod-ns-ml-a/instantstart-jobs" in associations()
    role = aws_client("iam").get_role(RoleName=f"instantstart-{TAG}-training-jobs")["Role"]
    trust = role["AssumeRolePolicyDocument"]
    trust = trust if isinstance(trust, dict) else json.loads(unquote(trust))
    namespaces = trust["Statement"][0]["Condition"]["StringLike"]["aws:RequestTag/kubernetes-namespace"]
    assert namespaces == ["default", "hyperpod-ns-*"]

    view = team_view(cluster, "ml-a")
    assert (view["namespaceReady"], view["namespaceMissing"]) == (True, [])


def test_a_second_volume_with_the_same_handle_leaves_its_claim_pending_with_a_warning(cluster):
    original = store(cluster).get("", "v1", "persistentvolumes", None, f"pv-{TAG}-{CLAIM}")
    copy = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv-same-handle"},
        "spec": {**original["spec"], "claimRef": {"namespace": "default", "name": "same-handle"}},
    }
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "same-handle", "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": "pv-same-handle"},
    }
    store(cluster).put(copy)
    store(cluster).put(claim)
    found = store(cluster).get("", "v1", "persistentvolumeclaims", "default", "same-handle")
    assert found["status"]["phase"] == "Pending"
    events = store(cluster).list("", "v1", "events", "default")
    assert any(e["reason"] == "DuplicateVolumeHandle" and e["involvedObject"]["name"] == "same-handle" for e in events)
    assert store(cluster).get("", "v1", "persistentvolumeclaims", "default", CLAIM)["status"]["phase"] == "Bound"
    store(cluster).delete("", "v1", "persistentvolumeclaims", "default", "same-handle")
    store(cluster).delete("", "v1", "persistentvolumes", None, "pv-same-handle")


def test_every_preparation_step_fails_once_in_turn_and_resume_prepares_the_namespace(cluster):
    created = create_team(cluster, "ml-b")
    assert cluster.wait_terminal(created["namespaceOperationId"])["status"] == "SUCCEEDED"
    # The namespace is ready already; the re-preparation proves each step level-triggered and resumable.

    def start() -> str:
        with cluster.client() as api:
            response = api.post(f"/clusters/{TAG}/teams/ml-b/namespace")
        assert response.status_code == 202, response.text
        return str(response.json()["operationId"])

    fail_each_step_in_turn(cluster, OperationKind.PREPARE_TEAM_NAMESPACE, start)
    assert team_view(cluster, "ml-b")["namespaceReady"] is True
    claims = store(cluster).list("", "v1", "persistentvolumeclaims", "hyperpod-ns-ml-b")
    assert [claim["metadata"]["name"] for claim in claims] == [CLAIM]


def test_preparing_an_unknown_teams_namespace_is_not_found(cluster):
    with cluster.client() as api:
        response = api.post(f"/clusters/{TAG}/teams/nobody/namespace")
    assert response.status_code == 404, response.text
    assert "create it with POST" in response.json()["message"]


def test_deleting_a_team_removes_its_claim_and_identity_and_keeps_the_namespace(cluster):
    with cluster.client() as api:
        deleted = confirmed(api, "DELETE", f"/clusters/{TAG}/teams/ml-a")
    assert deleted.status_code == 200, deleted.text
    operation = cluster.wait_terminal(deleted.json()["namespaceOperationId"])
    assert (operation["kind"], operation["status"]) == ("remove_team_namespace", "SUCCEEDED"), operation.get("error")
    assert store(cluster).get("", "v1", "namespaces", None, "hyperpod-ns-ml-a") is not None
    assert store(cluster).list("", "v1", "persistentvolumeclaims", "hyperpod-ns-ml-a") == []
    assert store(cluster).get("", "v1", "persistentvolumes", None, f"pv-{TAG}-ml-a-{CLAIM}") is None
    assert store(cluster).get("", "v1", "serviceaccounts", "hyperpod-ns-ml-a", ACCOUNT) is None
    assert "hyperpod-ns-ml-a/instantstart-jobs" not in associations()
    assert "default/instantstart-jobs" in associations()
    assert store(cluster).get("", "v1", "persistentvolumeclaims", "default", CLAIM)["status"]["phase"] == "Bound"
