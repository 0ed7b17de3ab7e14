"""A cluster whose CRD does not declare a field the control plane sends refuses the write, and the API says so with
a 400 that names the field, instead of creating the object without it (or answering 500)."""

from __future__ import annotations

import pytest

from sandbox.k8s.crds import published_crd

TAG = "strict"
JOB = {"name": "elastic", "image": "train:1", "nodes": 2, "gpusPerNode": 1, "instanceType": "ml.g6.4xlarge"}
CRD = "hyperpodpytorchjobs.sagemaker.amazonaws.com"


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, storage=True, features={"trainingOperator": {"enabled": True}})
    return TAG


def test_a_job_the_clusters_crd_cannot_hold_is_refused_naming_the_field(running_sandbox, cluster, operator) -> None:
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    older = published_crd(CRD)  # an operator from before elastic training: its CRD declares no elasticPolicy
    del older["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["elasticPolicy"]
    store.put(older)

    refused = operator.post(f"/clusters/{TAG}/jobs", json={**JOB, "elastic": {"minReplicas": 1, "maxReplicas": 2}})
    accepted = operator.post(f"/clusters/{TAG}/jobs", json={**JOB, "name": "steady"})

    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "KubernetesObjectRejected"
    assert 'unknown field "spec.elasticPolicy"' in refused.json()["message"]
    assert accepted.status_code == 201, accepted.text
    jobs = store.list("sagemaker.amazonaws.com", "v1", "hyperpodpytorchjobs", "default")
    assert [job["metadata"]["name"] for job in jobs] == ["steady"]
