"""The job kinds the job routes handle, one row each: API version, how a request renders to the object, how the
object reads back, and whether a listed object is a job of its own.

The order of `JOB_KINDS` is the order jobs are listed and looked up in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controlplane.core.training import manifest, ray
from controlplane.core.training.manifest import JobPlacement
from controlplane.models.training import JobKind, JobSummary, SubmitJobRequest


@dataclass(frozen=True)
class JobKindRules:
    """One kind's row: where its objects live and how they are written and read."""

    kind: JobKind
    api_version: str
    render: Callable[[SubmitJobRequest, JobPlacement], dict[str, Any]]
    summary: Callable[[dict[str, Any]], JobSummary]
    image: Callable[[dict[str, Any]], str | None]
    listed: Callable[[dict[str, Any]], bool] = lambda job: True


JOB_KINDS: dict[JobKind, JobKindRules] = {
    JobKind.HYPERPOD_PYTORCH_JOB: JobKindRules(
        JobKind.HYPERPOD_PYTORCH_JOB, manifest.API_VERSION, manifest.render, manifest.summary, manifest.image
    ),
    JobKind.RAY_JOB: JobKindRules(JobKind.RAY_JOB, ray.API_VERSION, ray.render, ray.summary, ray.image),
    JobKind.RAY_CLUSTER: JobKindRules(
        JobKind.RAY_CLUSTER,
        ray.API_VERSION,
        ray.render,
        ray.summary,
        ray.image,
        listed=lambda job: not ray.owned_by_a_ray_job(job),
    ),
}


def rules_of(job: dict[str, Any]) -> JobKindRules:
    """The rules of a job object's kind."""
    return JOB_KINDS[JobKind(job["kind"])]
