"""The training jobs' own AWS role through the API in the sandbox: enabling the training operator builds it (within
the workload boundary, allowed only to log to MLflow, trusted by pod identity for one ServiceAccount), the feature
lists it, a submitted job's pods run as its ServiceAccount, and disabling the feature removes exactly that chain."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import unquote

import pytest

from controlplane import wiring
from tests.conftest import aws_client
from tests.workflows.confirm import confirmed

TAG = "jobrole"
REGION = "us-west-2"
ROLE = f"instantstart-{TAG}-training-jobs"
SERVICE_ACCOUNT = "instantstart-jobs"
INSTANCE_TYPE = "ml.g6.4xlarge"
JOB = {"image": "train:1", "nodes": 1, "gpusPerNode": 1, "instanceType": INSTANCE_TYPE}


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, storage=True, features={"trainingOperator": {"enabled": True}})
    return TAG


def associations() -> list[str]:
    eks = aws_client("eks", region_name=REGION)
    found = eks.list_pod_identity_associations(clusterName=f"eks-cluster-{TAG}")["associations"]
    return sorted(f"{a['namespace']}/{a['serviceAccount']}" for a in found)


def service_accounts(running_sandbox) -> list[str]:
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    return sorted(
        f"{a['metadata']['namespace']}/{a['metadata']['name']}" for a in store.list("", "v1", "serviceaccounts")
    )


def job_pods(running_sandbox, name: str) -> list[dict[str, Any]]:
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    return [
        pod
        for pod in store.list("", "v1", "pods")
        if pod["metadata"].get("labels", {}).get("instantstart.aws/job") == name
    ]


def document(value: Any) -> dict[str, Any]:
    """IAM documents come back URL-encoded (the API) or decoded (boto3 parses some): the dict either way."""
    return value if isinstance(value, dict) else json.loads(unquote(value))


def test_enabling_the_training_operator_creates_the_jobs_role_within_the_workload_boundary(running_sandbox, cluster):
    iam = aws_client("iam")
    role = iam.get_role(RoleName=ROLE)["Role"]
    assert role["PermissionsBoundary"]["PermissionsBoundaryArn"] == wiring.settings().workload_role_boundary_arn
    (statement,) = document(role["AssumeRolePolicyDocument"])["Statement"]
    assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert statement["Condition"]["StringEquals"]["aws:RequestTag/kubernetes-service-account"] == SERVICE_ACCOUNT
    assert iam.list_role_policies(RoleName=ROLE)["PolicyNames"] == ["mlflow-tracking"]
    policy = document(iam.get_role_policy(RoleName=ROLE, PolicyName="mlflow-tracking")["PolicyDocument"])
    (allowed,) = policy["Statement"]
    assert allowed["Action"] == ["sagemaker-mlflow:*"]
    assert allowed["Resource"] == [f"arn:aws:sagemaker:{REGION}:{role['Arn'].split(':')[4]}:mlflow-tracking-server/*"]
    assert iam.list_attached_role_policies(RoleName=ROLE)["AttachedPolicies"] == []
    assert f"default/{SERVICE_ACCOUNT}" in associations()
    assert f"default/{SERVICE_ACCOUNT}" in service_accounts(running_sandbox)


def test_the_feature_lists_the_jobs_role_among_its_resources(running_sandbox, cluster):
    with running_sandbox.client("sandbox-viewer") as api:
        feature = api.get(f"/clusters/{TAG}/features").json()["features"]["trainingOperator"]
    assert feature["state"] == "enabled"
    assert f"role {ROLE}" in feature["resources"]
    assert feature["settings"]["jobServiceAccount"] == f"default/{SERVICE_ACCOUNT}"


def test_a_submitted_jobs_pods_run_as_the_jobs_service_account(running_sandbox, cluster):
    with running_sandbox.client("sandbox-operator") as operator:
        submitted = operator.post(f"/clusters/{TAG}/jobs", json={"name": "tracked", **JOB})
        assert submitted.status_code == 201, submitted.text
    deadline = time.monotonic() + 30
    while not (pods := job_pods(running_sandbox, "tracked")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pods
    assert {pod["spec"].get("serviceAccountName") for pod in pods} == {SERVICE_ACCOUNT}


def test_disabling_the_training_operator_removes_exactly_the_jobs_chain(running_sandbox, cluster):
    """Last in the module: it disables the feature."""
    others = [name for name in associations() if name != f"default/{SERVICE_ACCOUNT}"]
    with running_sandbox.client() as api:
        response = confirmed(api, "PATCH", f"/clusters/{TAG}/features", {"trainingOperator": {"enabled": False}})
        assert running_sandbox.wait_terminal(response.json()["operationId"])["status"] == "SUCCEEDED"
    roles = [r["RoleName"] for r in aws_client("iam").list_roles()["Roles"]]
    assert ROLE not in roles
    assert f"instantstart-{TAG}-training-operator" in roles, "the HyperPod stage's operator role stays"
    assert associations() == others
    assert f"default/{SERVICE_ACCOUNT}" not in service_accounts(running_sandbox)
