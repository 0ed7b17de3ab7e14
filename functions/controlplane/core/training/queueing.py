"""Why a queued job waits: the phase says Queued while Kueue holds a job (task governance), and the reason is its
Workload's, read beside the job (`KueueGateway`). Only jobs that are Queued cost a read; RBAC refusing the Workloads
leaves them Queued with that refusal as their reason. A model server's pods wait the same way (`core.serving.queueing`
words it with `waiting_reason`)."""

from __future__ import annotations

from collections.abc import Callable

from controlplane.core.ports.queues import KueueReadRefusedError, QueuedWorkload
from controlplane.models.training import JobPhase, JobSummary

NO_WORKLOAD = (
    "Kueue has made no Workload for it yet. If this lasts, its kueue.x-k8s.io/priority-class label names no priority "
    "class of the cluster's scheduler policy (<name>-priority): delete it and create it again with one that does."
)


def waiting_reason(workload: QueuedWorkload | None) -> str:
    if workload is None:
        return NO_WORKLOAD
    if workload.message:
        return f"{workload.reason}: {workload.message}" if workload.reason else workload.message
    return f"Waiting for Kueue to consider it in queue {workload.queue}."


def with_waiting_reasons(jobs: list[JobSummary], workloads: Callable[[], list[QueuedWorkload]]) -> list[JobSummary]:
    """The jobs with each Queued one's reason (`workloads` is read only when one is Queued)."""
    if not any(job.phase is JobPhase.QUEUED for job in jobs):
        return jobs
    unknown: str | None = None
    try:
        found: dict[tuple[str | None, str | None, str | None], QueuedWorkload] = {
            (w.namespace, w.job_kind, w.job_name): w for w in workloads() if not w.finished
        }
    except KueueReadRefusedError as refused:
        found = {}
        unknown = (
            f"Kueue holds it; why is unknown: the cluster's RBAC refuses the view role Kueue's {refused} (403); "
            f"{KueueReadRefusedError.REMEDY}."
        )
    return [
        job.model_copy(
            update={"waitingReason": unknown or waiting_reason(found.get((job.namespace, job.kind.value, job.name)))}
        )
        if job.phase is JobPhase.QUEUED
        else job
        for job in jobs
    ]
