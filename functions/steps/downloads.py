"""Downloads into the cluster's S3 claim: a Kubernetes Job (written through the Kubernetes access role) copies a
Hugging Face model or dataset; the operation ends with the Job."""

from __future__ import annotations

from controlplane import wiring
from controlplane.access.eks import DESCRIBE_EKS_CLUSTER
from controlplane.access.grant import ASSUME_KUBERNETES_ROLE
from controlplane.models.workflow import DownloadToStorageInput
from steps.groups import DOWNLOADS
from steps.step import work

STEPS = (
    work(
        "Start Download Job",
        DOWNLOADS,
        DownloadToStorageInput,
        lambda ctx: wiring.download_steps(ctx.region).start_download_job(ctx),
        (DESCRIBE_EKS_CLUSTER, ASSUME_KUBERNETES_ROLE),
        waiting="Waiting for Job {jobName} to download {download[repoId]}",
    ),
    work(
        "Check Download Job",
        DOWNLOADS,
        DownloadToStorageInput,
        lambda ctx: wiring.download_steps(ctx.region).check_download_job(ctx),
        (DESCRIBE_EKS_CLUSTER, ASSUME_KUBERNETES_ROLE),
        settled="{download[repoId]} is in s3://{download[bucketName]}/{download[prefix]}",
    ),
)
