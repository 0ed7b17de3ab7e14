"""Issue 29, finding 4: workloads go only into namespaces the control plane owns. Stage 5 puts its claims (and with
them jobs, model servers, downloads and endpoints) into `default`, into a namespace it creates labelled as its own,
or into one that already carries that label; never into a kube-* namespace, and never into someone else's."""

from __future__ import annotations

import pytest

from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE

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


@pytest.mark.xfail(
    strict=True,
    reason="finding 4's Secret part is not built: the API's Kubernetes roles may not read Secrets (EKS's view "
    "policy excludes them; the jobs role may only create and delete them), so checking a Secret's label needs a "
    "Role granting the jobs group `get` on Secrets in the namespaces the control plane owns",
)
@pytest.mark.parametrize(("labels", "status"), [(None, 404), ({"team": "x"}, 409)])
def test_a_download_refuses_a_token_secret_that_is_missing_or_not_the_control_planes(
    running_sandbox, cluster, labels, status
):
    name = f"token-{status}"
    if labels is not None:
        running_sandbox.sandbox.emulator.store(EKS).put(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": name, "namespace": "default", "labels": labels},
                "data": {"token": "c2VjcmV0"},
            }
        )
    with running_sandbox.client("sandbox-operator") as api:
        response = api.post(f"/clusters/{TAG}/downloads", json={"repoId": "Qwen/Qwen2.5-0.5B", "tokenSecret": name})
    assert response.status_code == status, response.text
    assert f"{MANAGED_LABEL}={MANAGED_LABEL_VALUE}" in response.json()["message"]
