"""A cluster whose Kubernetes API refuses the control plane (its access entries gone, as when a fault stops stage 1 at
Ensure Access Entry after EKS is ACTIVE) answers every route that reads or writes the cluster with one 4xx saying so
and how to restore access, never a 500."""

from __future__ import annotations

import pytest

from controlplane.core.naming import VIEWERS_GROUP
from controlplane.models.errors import ClusterAccessDeniedError
from controlplane.settings import settings
from tests.conftest import aws_client

TAG = "refused"
READS = [
    "status",
    "overview",
    "pods",
    "nodes",
    "features",
    "deployments",
    "deployments/absent",
    "endpoints",
    "endpoints/absent",
    "services",
    "services/public",
    "jobs",
    "jobs/absent",
    "model-pool",
]


@pytest.fixture(scope="module")
def refused_cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, storage=True)
    eks = aws_client("eks", "us-west-2")
    for role in (settings().kubernetes_role_arn, settings().kubernetes_view_role_arn):
        eks.delete_access_entry(clusterName=f"eks-cluster-{TAG}", principalArn=role)
    return TAG


def test_every_route_that_reads_the_cluster_says_it_refuses_the_control_plane(running_sandbox, refused_cluster):
    with running_sandbox.client("sandbox-admin") as api:
        answers = {path: api.get(f"/clusters/{TAG}/{path}") for path in READS}
        chat = api.post(f"/clusters/{TAG}/services/absent/chat", json={"messages": [{"role": "user", "content": "hi"}]})
        answers["services/absent/chat"] = chat
    codes = {path: (response.status_code, response.json().get("code")) for path, response in answers.items()}
    assert set(codes.values()) == {(409, "ClusterAccessDenied")}, codes
    message = answers["pods"].json()["message"]
    assert "refuses the control plane" in message
    assert "resume" in message and "access entry" in message


def test_a_write_to_the_cluster_says_it_refuses_the_control_plane(running_sandbox, refused_cluster):
    with running_sandbox.client("sandbox-admin") as api:
        response = api.delete(f"/clusters/{TAG}/jobs/absent")
    assert (response.status_code, response.json().get("code")) == (409, "ClusterAccessDenied"), response.text


def test_the_view_role_reads_jobs_through_the_viewers_group_and_is_refused_them_without_it(running_sandbox):
    """AmazonEKSViewPolicy names no custom resource: the job list reads HyperPodPyTorchJobs through the view entry's
    Kubernetes group, without which EKS (and the sandbox) answers 403, the view role's typed access refusal."""
    from kubernetes.client import CustomObjectsApi

    from controlplane import wiring
    from controlplane.adapters.aws.eks import AwsEksGateway

    running_sandbox.build_cluster("viewers", storage=True)
    with running_sandbox.client("sandbox-admin") as api:
        listed = api.get("/clusters/viewers/jobs")
    assert listed.status_code == 200, listed.text
    eks = aws_client("eks", "us-west-2")
    view = {"clusterName": "eks-cluster-viewers", "principalArn": settings().kubernetes_view_role_arn}
    cluster = AwsEksGateway("us-west-2").find_cluster("eks-cluster-viewers")
    reader = CustomObjectsApi(wiring.kubernetes_readers().api_client(cluster, "us-west-2"))
    jobs = ("sagemaker.amazonaws.com", "v1", "default", "hyperpodpytorchjobs")
    assert reader.list_namespaced_custom_object(*jobs)["items"] == []
    eks.update_access_entry(**view, kubernetesGroups=[])
    try:
        with pytest.raises(ClusterAccessDeniedError) as refused:
            reader.list_namespaced_custom_object(*jobs)
    finally:
        eks.update_access_entry(**view, kubernetesGroups=[VIEWERS_GROUP])
    assert refused.value.details["status"] == 403


def test_a_finished_cluster_whose_view_entry_lacks_the_group_is_refused_until_post_access_restores_it(
    running_sandbox,
):
    """A cluster made before the viewers' group existed (its view entry has no group, its create operation SUCCEEDED
    and cannot be resumed) answers 409 naming the role, the group and the route; POST access restores the reads."""
    running_sandbox.build_cluster("olderview", storage=True)
    view_role = settings().kubernetes_view_role_arn
    aws_client("eks", "us-west-2").update_access_entry(
        clusterName="eks-cluster-olderview", principalArn=view_role, kubernetesGroups=[]
    )
    with running_sandbox.client("sandbox-admin") as api:
        refused = api.get("/clusters/olderview/jobs")
        assert (refused.status_code, refused.json()["code"]) == (409, "ClusterAccessDenied"), refused.text
        message = refused.json()["message"]
        assert view_role in message and VIEWERS_GROUP in message
        assert "POST /clusters/olderview/access" in message

        started = api.post("/clusters/olderview/access", headers={"Idempotency-Key": "restore-olderview"})
        assert started.status_code == 202, started.text
        operation = running_sandbox.wait_terminal(started.json()["operationId"])
        assert operation["status"] == "SUCCEEDED", operation
        again = api.post("/clusters/olderview/access", headers={"Idempotency-Key": "restore-olderview"})
        assert again.json()["operationId"] == operation["operationId"]

        assert api.get("/clusters/olderview/jobs").status_code == 200
    groups = aws_client("eks", "us-west-2").describe_access_entry(
        clusterName="eks-cluster-olderview", principalArn=view_role
    )["accessEntry"]["kubernetesGroups"]
    assert groups == [VIEWERS_GROUP]
