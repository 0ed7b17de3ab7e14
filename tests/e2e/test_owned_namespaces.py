"""Issue 29, finding 4: workloads go only into namespaces the control plane owns. Stage 5 puts its claims (and with
them jobs, model servers, downloads and endpoints) into `default`, into a namespace it creates labelled as its own,
or into one that already carries that label; never into a kube-* namespace, and never into someone else's."""

from __future__ import annotations

import pytest

from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.models.errors import ClusterAccessDeniedError

TAG = "owned"
EKS = f"eks-cluster-{TAG}"


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, hyperpod=False, storage=True)
    return TAG


def namespace(running_sandbox, name: str) -> dict | None:
    return running_sandbox.sandbox.emulator.store(EKS).get("", "v1", "namespaces", None, name)


@pytest.mark.parametrize("target", ["kube-system", "kube-public", "kube-node-lease", "kube-anything"])
@pytest.mark.parametrize("dry_run", ["true", "false"])
def test_a_claim_is_never_put_or_moved_into_a_kube_namespace(running_sandbox, cluster, target, dry_run):
    with running_sandbox.client("sandbox-operator") as api:
        response = api.post(f"/clusters/{TAG}/storage", params={"dryRun": dry_run}, json={"namespace": target})
    assert response.status_code == 400, response.text
    assert f"'{target}'" in response.text and "kube-" in response.text
    assert (
        running_sandbox.sandbox.emulator.store(EKS).get("", "v1", "persistentvolumeclaims", target, "s3-claim") is None
    )


def test_stage_5_creates_the_namespace_it_names_labelled_as_the_control_planes(running_sandbox, cluster):
    with running_sandbox.client("sandbox-operator") as api:
        planned = api.post(f"/clusters/{TAG}/storage", params={"dryRun": "true"}, json={"namespace": "team-a"}).json()
        accepted = api.post(f"/clusters/{TAG}/storage", json={"namespace": "team-a"})
        assert accepted.status_code == 202, accepted.text
        operation = running_sandbox.wait_terminal(accepted.json()["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    assert {"action": "create", "resource": "Kubernetes Namespace", "name": "team-a"}.items() <= next(
        action for action in planned["actions"] if action["resource"] == "Kubernetes Namespace"
    ).items()
    created = namespace(running_sandbox, "team-a")
    assert created is not None and created["metadata"]["labels"][MANAGED_LABEL] == MANAGED_LABEL_VALUE


def test_a_namespace_without_the_ownership_label_is_refused_with_how_to_label_it(running_sandbox, cluster):
    running_sandbox.sandbox.emulator.store(EKS).put(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "theirs"}}
    )
    with running_sandbox.client("sandbox-operator") as api:
        planned = api.post(f"/clusters/{TAG}/storage", params={"dryRun": "true"}, json={"namespace": "theirs"})
        started = api.post(f"/clusters/{TAG}/storage", json={"namespace": "theirs"})
    for response in (planned, started):
        assert (response.status_code, response.json()["code"]) == (409, "ForeignResource"), response.text
        assert f"kubectl label namespace theirs {MANAGED_LABEL}={MANAGED_LABEL_VALUE}" in response.json()["message"]


def test_a_namespace_labelled_as_the_control_planes_is_used_as_it_is(running_sandbox, cluster):
    labels = {MANAGED_LABEL: MANAGED_LABEL_VALUE}
    running_sandbox.sandbox.emulator.store(EKS).put(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "labelled", "labels": labels}}
    )
    with running_sandbox.client("sandbox-operator") as api:
        planned = api.post(f"/clusters/{TAG}/storage", params={"dryRun": "true"}, json={"namespace": "labelled"})
        assert planned.status_code == 200, planned.text
        assert "Kubernetes Namespace" not in [action["resource"] for action in planned.json()["actions"]]


def claim_namespace(running_sandbox) -> str:
    """The namespace of the cluster's claim, where its workloads run (an earlier test may have moved it)."""
    with running_sandbox.client("sandbox-viewer") as api:
        claim = api.get(f"/clusters/{TAG}").json()["storageClaim"]
    return claim.rpartition("/")[0] or "default"


def put_secret(running_sandbox, name: str, namespace: str, labels: dict[str, str]) -> None:
    running_sandbox.sandbox.emulator.store(EKS).put(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "data": {"token": "c2VjcmV0"},
        }
    )


@pytest.mark.parametrize(("labels", "status"), [(None, 404), ({"team": "x"}, 409)])
def test_a_download_refuses_a_token_secret_that_is_missing_or_not_the_control_planes(
    running_sandbox, cluster, labels, status
):
    name, namespace = f"token-{status}", claim_namespace(running_sandbox)
    if labels is not None:
        put_secret(running_sandbox, name, namespace, labels)
    with running_sandbox.client("sandbox-operator") as api:
        response = api.post(f"/clusters/{TAG}/downloads", json={"repoId": "Qwen/Qwen2.5-0.5B", "tokenSecret": name})
    assert response.status_code == status, response.text
    assert f"Secret {namespace}/{name}" in response.json()["message"]
    assert f"{MANAGED_LABEL}={MANAGED_LABEL_VALUE}" in response.json()["message"]


def test_a_download_uses_a_token_secret_labelled_as_the_control_planes(running_sandbox, cluster):
    put_secret(running_sandbox, "token-ours", claim_namespace(running_sandbox), {MANAGED_LABEL: MANAGED_LABEL_VALUE})
    with running_sandbox.client("sandbox-operator") as api:
        response = api.post(
            f"/clusters/{TAG}/downloads", json={"repoId": "Qwen/Qwen2.5-0.5B", "tokenSecret": "token-ours"}
        )
        assert response.status_code == 202, response.text
        operation = running_sandbox.wait_terminal(response.json()["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")


def test_the_api_reads_secrets_only_as_the_jobs_role_and_only_in_the_control_planes_namespaces(
    running_sandbox, cluster
):
    """EKS's view policy reads no Secret; the jobs role gets one only where stage 1 or 5 applied its Secret reader."""
    from kubernetes.client import CoreV1Api
    from kubernetes.client.exceptions import ApiException

    from controlplane import wiring
    from controlplane.adapters.aws.eks import AwsEksGateway

    namespace = claim_namespace(running_sandbox)
    for where in {namespace, "default", "kube-system"}:
        put_secret(running_sandbox, "probe", where, {})
    eks = AwsEksGateway("us-west-2").find_cluster(EKS)
    viewer = CoreV1Api(wiring.kubernetes_readers().api_client(eks, "us-west-2"))
    jobs = CoreV1Api(wiring.kubernetes_job_writers().api_client(eks, "us-west-2"))
    with pytest.raises(ClusterAccessDeniedError) as refused_view:
        viewer.read_namespaced_secret("probe", namespace)
    assert refused_view.value.details["status"] == 403
    with pytest.raises(ApiException) as refused:
        jobs.read_namespaced_secret("probe", "kube-system")
    assert refused.value.status == 403
    for where in (namespace, "default"):
        assert jobs.read_namespaced_secret("probe", where).metadata.namespace == where
