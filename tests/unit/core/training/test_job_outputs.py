"""A training job's output as a model to serve: where a Succeeded job wrote it in S3, and each refusal (one rule for
self-managed model servers and managed endpoints)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.training.outputs import JobOutput, job_output
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import InvalidRequestError

BUCKET = "data-demo"


def job(args: list[str], condition: str = "Completed") -> dict[str, Any]:
    container = {"name": "pytorch", "image": "train:1", "args": args}
    return {
        "apiVersion": "sagemaker.amazonaws.com/v1",
        "kind": "HyperPodPyTorchJob",
        "metadata": {"name": "sft", "namespace": "ml"},
        "spec": {"replicaSpecs": [{"name": "pods", "replicas": 1, "template": {"spec": {"containers": [container]}}}]},
        "status": {"conditions": [{"type": condition, "status": "True"}]},
    }


@pytest.fixture
def record(make_record: Callable[..., ClusterRecord]) -> ClusterRecord:
    return make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim", storageBucket=BUCKET)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--model=/s3/models/base", "--output_dir=/s3/outputs/sft"], JobOutput(BUCKET, "outputs/sft")),
        (["--output", "s3://other-bucket/run-7/model/"], JobOutput("other-bucket", "run-7/model")),
        (["--output-path=s3://other-bucket"], JobOutput("other-bucket", "")),
    ],
)
def test_a_succeeded_jobs_output_is_its_s3_location(record: ClusterRecord, args: list[str], expected: JobOutput):
    found = job_output(record, "sft", lambda name: job(args) if name == "sft" else None)

    assert found == expected
    assert found.uri == f"s3://{expected.bucket}/{expected.prefix}"


@pytest.mark.parametrize(
    ("args", "condition", "says"),
    [
        (["--output_dir=/s3/out"], "Running", "is Running, not Succeeded"),
        (["--epochs=1"], "Completed", "names no output path"),
        (["--output_dir=/tmp/out"], "Completed", "not in S3"),
    ],
)
def test_a_job_whose_output_cannot_be_served_is_refused(record: ClusterRecord, args: list[str], condition: str, says):
    with pytest.raises(InvalidRequestError, match=says):
        job_output(record, "sft", lambda _: job(args, condition))


def test_an_unknown_job_is_refused_with_where_to_find_the_jobs(record: ClusterRecord) -> None:
    with pytest.raises(InvalidRequestError, match=r"no training job named 'nope'.*GET /clusters/.*/jobs"):
        job_output(record, "nope", lambda _: None)


def test_an_output_under_the_claim_needs_the_clusters_bucket(make_record: Callable[..., ClusterRecord]) -> None:
    without_bucket = make_record("eks", "hyperpod")

    with pytest.raises(InvalidRequestError, match="not in S3"):
        job_output(without_bucket, "sft", lambda _: job(["--output_dir=/s3/out"]))
