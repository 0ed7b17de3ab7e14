"""The KubeRay path's objects: every rendered RayJob and RayCluster validates against its CRD schema (the project's
check and jsonschema), the head and workers share the job's pod template, and KubeRay's status reads as the jobs'
phases."""

from __future__ import annotations

import json
import shlex
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

from controlplane.core.training.manifest import JOB_LABEL, JobPlacement
from controlplane.core.training.ray import owned_by_a_ray_job, phase, render, summary
from controlplane.core.training.schema import crd_schema, schema_problems
from controlplane.models.training import JobKind, JobPhase, SubmitJobRequest

PLACEMENT = JobPlacement(namespace="ml", claim="s3-claim", fsx_claim="fsx-claim", efa_interfaces=4)
ENTRYPOINT = ["python3", "-m", "verl.trainer.main_ppo", "data.train_files=/s3/a b.parquet", "trainer.logger=[console]"]
REQUESTS = {
    "minimal job": {"name": "a", "kind": "RayJob", "image": "img", "instanceType": "ml.g5.12xlarge", "command": ["x"]},
    "everything": {
        "name": "verl-grpo",
        "kind": "RayJob",
        "image": "123.dkr.ecr.us-west-2.amazonaws.com/verl:1",
        "command": ENTRYPOINT,
        "args": ["trainer.total_epochs=1"],
        "nodes": 4,
        "gpusPerNode": 8,
        "instanceGroup": "workers",
        "efa": True,
        "deepHealthCheckedOnly": True,
        "sharedMemoryGi": 256,
        "environment": {"NCCL_DEBUG": "WARN"},
        "ray": {
            "rayVersion": "2.46.0",
            "runtimeEnv": {"env_vars": {"HF_HOME": "/s3/hf"}, "pip": ["math-verify"]},
            "shutdownAfterJobFinishes": False,
            "ttlSecondsAfterFinished": 600,
        },
    },
    "cluster": {"name": "ray", "kind": "RayCluster", "image": "img", "nodes": 2, "instanceType": "ml.g5.12xlarge"},
}


def request(**fields: Any) -> SubmitJobRequest:
    return SubmitJobRequest.model_validate({**REQUESTS["everything"], **fields})


def validator(kind: str) -> jsonschema.Draft7Validator:
    """jsonschema over the same files, with the RayJob's reference to the RayCluster's spec resolved."""
    cluster = Resource.from_contents(crd_schema("RayCluster"), default_specification=DRAFT7)
    return jsonschema.Draft7Validator(crd_schema(kind), registry=Registry().with_resource("raycluster.json", cluster))


@pytest.mark.parametrize("body", REQUESTS.values(), ids=REQUESTS.keys())
def test_every_rendered_ray_object_validates_against_its_crd_schema(body: dict[str, Any]) -> None:
    job = render(SubmitJobRequest.model_validate(body), PLACEMENT)

    assert (job["apiVersion"], job["kind"]) == ("ray.io/v1", body["kind"])
    assert schema_problems(job) == []
    validator(body["kind"]).validate(job)


def test_the_schema_check_reads_the_ray_cluster_spec_inside_a_ray_job() -> None:
    job = render(request(), PLACEMENT)
    job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["rayStartParams"] = {"num-gpus": 8}
    del job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]
    job["spec"]["submissionMode"] = "Carrier pigeon"

    assert sorted(schema_problems(job)) == [
        ".spec.rayClusterSpec.headGroupSpec.template: required",
        ".spec.rayClusterSpec.workerGroupSpecs[0].rayStartParams.num-gpus: expected string, got int",
        ".spec.submissionMode: 'Carrier pigeon' is not one of ['K8sJobMode', 'HTTPMode', 'InteractiveMode', "
        "'SidecarMode']",
    ]


def test_a_ray_job_is_a_head_and_nodes_minus_one_workers_on_the_same_pod_template() -> None:
    job = render(request(), PLACEMENT)

    cluster = job["spec"]["rayClusterSpec"]
    head, [workers] = cluster["headGroupSpec"]["template"], cluster["workerGroupSpecs"]
    assert (workers["replicas"], workers["minReplicas"], workers["maxReplicas"]) == (3, 3, 3)
    for template in (head, workers["template"]):
        spec = template["spec"]
        assert template["metadata"]["labels"] == {JOB_LABEL: "verl-grpo"}
        assert spec["nodeSelector"] == {"sagemaker.amazonaws.com/instance-group-name": "workers"}
        [container] = spec["containers"]
        assert container["resources"]["limits"] == {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "4"}
        assert [m["mountPath"] for m in container["volumeMounts"]] == ["/s3", "/dev/shm", "/fsx"]
        assert "command" not in container  # KubeRay starts Ray in the head and worker containers
        assert "affinity" in spec
    assert job["spec"]["submitterPodTemplate"]["metadata"]["labels"] == {JOB_LABEL: "verl-grpo"}


def test_the_entrypoint_is_the_argv_quoted_for_the_shell_that_runs_it() -> None:
    job = render(request(), PLACEMENT)

    assert shlex.split(job["spec"]["entrypoint"]) == [*ENTRYPOINT, "trainer.total_epochs=1"]
    assert json.loads(job["spec"]["runtimeEnvYAML"]) == {"env_vars": {"HF_HOME": "/s3/hf"}, "pip": ["math-verify"]}
    assert (job["spec"]["shutdownAfterJobFinishes"], job["spec"]["ttlSecondsAfterFinished"]) == (False, 600)


def test_a_ray_cluster_stays_up_and_runs_no_entrypoint() -> None:
    job = render(SubmitJobRequest.model_validate(REQUESTS["cluster"]), PLACEMENT)

    assert "entrypoint" not in job["spec"] and job["spec"]["headGroupSpec"]
    with pytest.raises(ValidationError, match="runs no entrypoint"):
        SubmitJobRequest.model_validate({**REQUESTS["cluster"], "command": ["python3"]})


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"command": []}, "a RayJob needs `command`"),
        ({"runPolicy": {"jobMaxRetryCount": 1}}, "runPolicy: HyperPodPyTorchJob only"),
        ({"elastic": {"minReplicas": 1, "maxReplicas": 2}}, "elastic: HyperPodPyTorchJob only"),
        ({"kind": "HyperPodPyTorchJob"}, "`ray` is for kinds RayJob and RayCluster"),
        ({"ray": {"rayVersion": "latest"}}, "rayVersion"),
    ],
)
def test_a_ray_request_refuses_what_the_kuberay_path_cannot_honour(fields: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        request(**fields)


def test_a_ray_request_echoed_back_with_the_defaults_is_still_valid() -> None:
    """A dry run's rendered request (every default written out) can be submitted as it is."""
    echoed = request().model_dump(mode="json")

    assert SubmitJobRequest.model_validate(echoed) == request()


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ({}, JobPhase.PENDING),
        ({"jobDeploymentStatus": "Initializing"}, JobPhase.PENDING),
        ({"jobDeploymentStatus": "Running", "jobStatus": "PENDING"}, JobPhase.RUNNING),
        ({"jobDeploymentStatus": "Running", "jobStatus": "RUNNING"}, JobPhase.RUNNING),
        ({"jobDeploymentStatus": "Retrying"}, JobPhase.RESTARTING),
        ({"jobDeploymentStatus": "Complete", "jobStatus": "SUCCEEDED"}, JobPhase.SUCCEEDED),
        ({"jobDeploymentStatus": "Complete", "jobStatus": "STOPPED"}, JobPhase.FAILED),
        ({"jobDeploymentStatus": "Failed"}, JobPhase.FAILED),
        ({"jobDeploymentStatus": "Complete", "jobStatus": "FAILED"}, JobPhase.FAILED),
    ],
)
def test_a_ray_jobs_phase_reads_its_job_status_then_its_deployment_status(
    status: dict[str, str], expected: JobPhase
) -> None:
    assert phase({"kind": "RayJob", "status": status}) == expected


def test_a_ray_cluster_runs_once_ready_and_its_summary_counts_the_head_and_workers() -> None:
    cluster = render(SubmitJobRequest.model_validate(REQUESTS["cluster"]), PLACEMENT)
    assert phase(cluster) == JobPhase.PENDING
    cluster["status"] = {"state": "ready"}

    read = summary({**cluster, "metadata": {**cluster["metadata"], "creationTimestamp": "2026-01-01T00:00:00Z"}})

    assert (read.kind, read.phase, read.nodes, read.gpusPerNode) == (JobKind.RAY_CLUSTER, JobPhase.RUNNING, 2, 1)
    assert read.restartBudget is None


def test_a_ray_cluster_made_for_a_ray_job_is_part_of_that_job() -> None:
    made = {"metadata": {"name": "verl-x7k2p", "ownerReferences": [{"kind": "RayJob", "name": "verl"}]}}

    assert owned_by_a_ray_job(made) and not owned_by_a_ray_job({"metadata": {"name": "ray"}})


@pytest.mark.parametrize("kind", ["RayJob", "RayCluster"])
def test_ray_head_and_workers_run_as_the_jobs_service_account_when_the_placement_has_one(kind: str) -> None:
    placement = JobPlacement("ml", "s3-claim", None, 0, service_account="instantstart-jobs")
    job = render(SubmitJobRequest.model_validate(REQUESTS["minimal job" if kind == "RayJob" else "cluster"]), placement)

    cluster = job["spec"]["rayClusterSpec"] if kind == "RayJob" else job["spec"]
    templates = [cluster["headGroupSpec"]["template"], cluster["workerGroupSpecs"][0]["template"]]
    assert [template["spec"]["serviceAccountName"] for template in templates] == ["instantstart-jobs"] * 2
    assert schema_problems(job) == []
    validator(kind).validate(job)
