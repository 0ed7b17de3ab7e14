"""The download workflow's steps: start the downloader Job (level-triggered), then wait until it completes.

A Job that failed is the operation's failure, with the Job's reason; resuming the operation deletes the failed
Job and starts it again. Both steps reach Kubernetes through the steps' cluster-admin role.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.downloads.manifest import JOB_API_VERSION, JOB_KIND, download_job, job_outcome
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.models.errors import DomainError, ResourceNotReadyError
from controlplane.models.workflow import DownloadToStorageInput, PollState


class DownloadFailedError(DomainError):
    """The downloader Job failed (a wrong repository id, a gated repository without a token, …)."""

    status = 502
    code = "DownloadFailed"


class DownloadJobMissingError(DomainError):
    """The downloader Job is gone while the operation waits for it."""

    status = 409
    code = "DownloadJobMissing"


class DownloadSteps:
    def __init__(self, eks: EksGateway, kubernetes: KubernetesGateway, poller: Poller) -> None:
        self._eks = eks
        self._kubernetes = kubernetes
        self._poller = poller

    def start_download_job(self, ctx: DownloadToStorageInput) -> dict[str, Any]:
        """Create the Job if it is missing; a failed one (a resumed operation) is deleted and created again."""
        plan = ctx.download
        cluster = self._cluster(ctx)
        job = download_job(plan)
        live = self._job(ctx, cluster)
        if live is not None and job_outcome(live)[0] != "Failed":
            return {"jobName": plan.jobName, "action": "unchanged"}
        if live is not None:
            self._kubernetes.delete(cluster, ctx.region, [job])
            if self._job(ctx, cluster) is not None:
                raise ResourceNotReadyError(f"The failed download Job {plan.jobName} is still being deleted.")
        self._kubernetes.apply(cluster, ctx.region, [job])
        return {"jobName": plan.jobName, "action": "recreated" if live is not None else "created"}

    def check_download_job(self, ctx: DownloadToStorageInput) -> PollState:
        """Done once the Job has completed; its failure fails the operation with the Job's reason."""
        plan = ctx.download
        live = self._job(ctx, self._cluster(ctx))
        if live is None:
            raise DownloadJobMissingError(
                f"The download Job {plan.namespace}/{plan.jobName} is gone; POST /operations/{ctx.operationId}/resume "
                "starts it again."
            )
        outcome, reason = job_outcome(live)
        if outcome == "Failed":
            raise DownloadFailedError(
                f"The download of {plan.repoId} failed ({reason}); read the logs of Job {plan.namespace}/"
                f"{plan.jobName}, fix the cause (repository id, revision, token), then POST "
                f"/operations/{ctx.operationId}/resume to run it again."
            )
        wait = Wait(f"{plan.repoId} to be downloaded to s3://{plan.bucketName}/{plan.key_prefix}", _deadline(ctx))
        return self._poller.poll(ctx, wait, done=outcome == "Succeeded", status=outcome)

    def _job(self, ctx: DownloadToStorageInput, cluster: EksCluster) -> dict[str, Any] | None:
        plan = ctx.download
        return self._kubernetes.get(cluster, ctx.region, JOB_API_VERSION, JOB_KIND, plan.jobName, plan.namespace)

    def _cluster(self, ctx: DownloadToStorageInput) -> EksCluster:
        return reachable_control_plane(self._eks, ctx.eksClusterName, ctx.clusterTag)


def _deadline(ctx: DownloadToStorageInput) -> timedelta:
    return timedelta(seconds=ctx.download.deadlineSeconds)
