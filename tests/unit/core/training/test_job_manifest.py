"""Every rendered HyperPodPyTorchJob validates against the CRD schema kept in the repository, both by the
project's own check (what runs before submission) and by jsonschema (an independent reading of the same file)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from controlplane.core.training.manifest import JobPlacement, phase, render, restart_budget
from controlplane.core.training.schema import crd_schema, schema_problems
from controlplane.models.training import JobPhase, SubmitJobRequest

PLACEMENT = JobPlacement(namespace="default", claim="s3-claim", fsx_claim="fsx-claim", efa_interfaces=4)
REQUESTS = {
    "minimal": {"name": "a", "image": "img", "instanceType": "ml.g5.12xlarge"},
    "everything": {
        "name": "llama-sft",
        "image": "123.dkr.ecr.us-west-2.amazonaws.com/train:1",
        "command": ["hyperpodrun", "--nproc-per-node=8"],
        "args": ["train.py", "--epochs", "3"],
        "nodes": 4,
        "gpusPerNode": 8,
        "instanceGroup": "workers",
        "efa": True,
        "deepHealthCheckedOnly": True,
        "sharedMemoryGi": 256,
        "environment": {"NCCL_DEBUG": "INFO", "HF_HOME": "/s3/hf"},
        "runPolicy": {"jobMaxRetryCount": 10, "restartPolicy": {"numRestartBeforeFullJobRestart": 2}},
        "logMonitoring": [
            {"name": "hang", "logPattern": ".*step.*", "expectedRecurringFrequencyInSeconds": 300},
            {"name": "slow", "logPattern": ".*tps=(\\d+).*", "metricThreshold": 100, "operator": "lt"},
        ],
        "elastic": {"minReplicas": 2, "maxReplicas": 4},
    },
    "cpu only": {"name": "cpu", "image": "img", "gpusPerNode": 0, "instanceType": "ml.m5.xlarge"},
}


@pytest.mark.parametrize("body", REQUESTS.values(), ids=REQUESTS.keys())
def test_every_rendered_job_validates_against_the_crd_schema(body: dict[str, Any]) -> None:
    job = render(SubmitJobRequest.model_validate(body), PLACEMENT)

    assert schema_problems(job) == []
    jsonschema.validate(job, crd_schema("HyperPodPyTorchJob"))


def test_the_schema_check_names_each_problem() -> None:
    job = render(SubmitJobRequest.model_validate(REQUESTS["minimal"]), PLACEMENT)
    job["spec"]["runPolicy"]["cleanPodPolicy"] = "Sometimes"
    job["spec"]["replicaSpecs"][0]["replicas"] = -1
    job["spec"]["restartPolicy"] = {}

    assert schema_problems(job) == [
        ".spec.replicaSpecs[0].replicas: -1 is below the minimum 0",
        ".spec.runPolicy.cleanPodPolicy: 'Sometimes' is not one of ['All', 'OnlyComplete', 'None']",
        ".spec.restartPolicy: unknown field",
    ]


def test_the_job_places_mounts_and_sizes_its_pods() -> None:
    job = render(SubmitJobRequest.model_validate(REQUESTS["everything"]), PLACEMENT)
    template = job["spec"]["replicaSpecs"][0]["template"]
    container = template["spec"]["containers"][0]

    assert template["spec"]["nodeSelector"] == {"sagemaker.amazonaws.com/instance-group-name": "workers"}
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "4"}
    assert [m["mountPath"] for m in container["volumeMounts"]] == ["/s3", "/dev/shm", "/fsx"]
    assert {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "256Gi"}} in template["spec"]["volumes"]
    assert "affinity" in template["spec"]
    assert job["spec"]["elasticPolicy"] == {"minReplicas": 2, "maxReplicas": 4}
    assert job["spec"]["nprocPerNode"] == "8"


def test_a_request_needs_exactly_one_placement() -> None:
    with pytest.raises(ValueError, match="instanceType or instanceGroup"):
        SubmitJobRequest.model_validate({"name": "a", "image": "img"})
    with pytest.raises(ValueError, match="not both"):
        SubmitJobRequest.model_validate({"name": "a", "image": "img", "instanceType": "t", "instanceGroup": "g"})


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        ([], JobPhase.PENDING),
        ([{"type": "Running", "status": "True"}], JobPhase.RUNNING),
        ([{"type": "Running", "status": "False"}, {"type": "Restarting", "status": "True"}], JobPhase.RESTARTING),
        ([{"type": "Running", "status": "False"}, {"type": "Completed", "status": "True"}], JobPhase.SUCCEEDED),
        ([{"type": "Failed", "status": "True"}], JobPhase.FAILED),
    ],
)
def test_the_phase_reads_the_strongest_condition_that_holds(
    conditions: list[dict[str, str]], expected: JobPhase
) -> None:
    assert phase({"status": {"conditions": conditions}}) == expected


def test_the_restart_budget_reads_the_policy_with_fields_the_operator_adds() -> None:
    job = {
        "spec": {"runPolicy": {"restartPolicy": {"evalPeriodSeconds": 60, "maxNumRepeatOffendersToAvoid": 2}}},
        "status": {"restartCount": 2, "restartStatus": {"fullJobRestartCount": 1}},
    }

    budget = restart_budget(job)

    assert (budget.restarts, budget.restartsBeforeFullJobRestart, budget.fullJobRestarts) == (2, 3, 1)
    assert (budget.maxFullJobRestarts, budget.jobMaxRetryCount) == (1, 5)


def test_pods_run_as_the_jobs_service_account_when_the_placement_has_one() -> None:
    placement = JobPlacement("default", "s3-claim", None, 0, service_account="instantstart-jobs")
    job = render(SubmitJobRequest.model_validate(REQUESTS["everything"]), placement)

    assert job["spec"]["replicaSpecs"][0]["template"]["spec"]["serviceAccountName"] == "instantstart-jobs"
    assert schema_problems(job) == []
    jsonschema.validate(job, crd_schema("HyperPodPyTorchJob"))


def test_pods_run_as_the_namespaces_default_service_account_without_one() -> None:
    job = render(SubmitJobRequest.model_validate(REQUESTS["minimal"]), PLACEMENT)

    assert "serviceAccountName" not in job["spec"]["replicaSpecs"][0]["template"]["spec"]
