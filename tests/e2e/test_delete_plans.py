"""A cluster's delete plan names the work it destroys (issue 29, finding 10): the running jobs, the model servers and
the managed endpoints with the SageMaker endpoints behind them; what is removed and what is left (the data bucket,
what deleting the EKS cluster cannot clean up); only the IAM roles that exist. The token confirms exactly that plan."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from botocore.exceptions import ClientError

from controlplane.core.naming import karpenter_role_name
from tests.conftest import aws_client
from tests.fakes.deployment import DEPLOYMENT

TAG = "doomed"
REGION = "us-west-2"
INSTANCE_TYPE = "ml.g6.4xlarge"
JOB = {"name": "pretrain", "image": "train:1", "nodes": 1, "gpusPerNode": 1, "instanceType": INSTANCE_TYPE}
SERVER = {"name": "chat", "command": "vllm serve Qwen/Qwen3-0.6B", "gpus": 1, "serviceType": "external"}
MODEL = {"source": {"huggingFace": {"modelId": "Qwen/Qwen3-0.6B"}}, "image": "vllm/vllm-openai:v0.10.0", "gpus": 1}
ENDPOINT = {"name": "qwen", "instanceType": INSTANCE_TYPE, "model": MODEL}


@pytest.fixture(scope="module")
def busy_cluster(running_sandbox) -> Iterator[str]:
    """A cluster with a job still running (its steps are slow), an internet-facing model server and an endpoint."""
    features = {name: {"enabled": True} for name in ("trainingOperator", "fsxCsiDriver", "inferenceOperator")}
    running_sandbox.build_cluster(TAG, instances=3, storage=True, features=features)
    training = running_sandbox.sandbox.training
    before = training.seconds_per_line
    training.seconds_per_line = 2
    with running_sandbox.client("sandbox-operator") as api:
        for path, body in (("jobs", JOB), ("deployments", SERVER), ("endpoints", ENDPOINT)):
            created = api.post(f"/clusters/{TAG}/{path}", json=body)
            assert created.status_code == 201, created.text
    yield TAG
    training.seconds_per_line = before


def plan_of(running_sandbox) -> dict:
    with running_sandbox.client() as api:
        response = api.delete(f"/clusters/{TAG}")
    assert response.status_code == 200, response.text
    return response.json()


def listed(plan: dict, action: str) -> set[tuple[str, str]]:
    return {(item["resource"], item["name"]) for item in plan["actions"] if item["action"] == action}


def role_exists(name: str) -> bool:
    try:
        aws_client("iam").get_role(RoleName=name)
    except ClientError:
        return False
    return True


def test_the_plan_lists_the_running_job_the_model_server_and_the_endpoint(running_sandbox, busy_cluster):
    deleted = listed(plan_of(running_sandbox), "delete")
    assert ("HyperPodPyTorchJob", "default/pretrain") in deleted
    assert ("Deployment", "default/chat") in deleted
    assert ("InferenceEndpointConfig", "default/qwen") in deleted


def test_the_plan_says_what_deleting_the_cluster_leaves_behind(running_sandbox, busy_cluster):
    plan = plan_of(running_sandbox)
    kept = listed(plan, "keep")
    assert ("AWS::SageMaker::Endpoint", f"is-{TAG}-qwen") in kept
    assert ("AWS::ElasticLoadBalancingV2::LoadBalancer", "load balancer of Service default/chat") in kept
    assert ("AWS::S3::Bucket", f"instantstart-{TAG}-123456789012-{REGION}") in kept
    endpoint = next(item for item in plan["actions"] if item["resource"] == "AWS::SageMaker::Endpoint")
    assert f"DELETE /clusters/{TAG}/endpoints/qwen" in endpoint["detail"]


def test_the_plan_lists_only_roles_that_exist(running_sandbox, busy_cluster):
    roles = [name for resource, name in listed(plan_of(running_sandbox), "delete") if resource == "AWS::IAM::Role"]
    assert roles
    assert [name for name in roles if not role_exists(name)] == []
    assert karpenter_role_name(DEPLOYMENT, TAG) not in roles


def test_a_token_confirms_only_the_work_its_plan_listed(running_sandbox, busy_cluster):
    token = plan_of(running_sandbox)["confirmationToken"]
    with running_sandbox.client("sandbox-operator") as api:
        second = api.post(f"/clusters/{TAG}/deployments", json={**SERVER, "name": "late", "serviceType": "internal"})
        assert second.status_code == 201, second.text
    with running_sandbox.client() as api:
        refused = api.delete(f"/clusters/{TAG}", params={"confirmationToken": token})
        assert refused.status_code == 400, refused.text
        assert refused.json()["code"] == "ConfirmationRequired"
        assert api.get(f"/clusters/{TAG}").json()["status"] == "ACTIVE"
    assert ("Deployment", "default/late") in listed(plan_of(running_sandbox), "delete")
