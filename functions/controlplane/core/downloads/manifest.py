"""The Kubernetes objects of a download: the Secret that holds a request's token, and the downloader Job.

The Job mounts the S3 claim at `/s3` and writes the repository to `/s3/<prefix>/<repo id>`; it reads the token
from the Secret through its environment (`HF_TOKEN`), so the token is in no manifest, log or record of ours.
"""

from __future__ import annotations

import hashlib
from typing import Any

from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.models.downloads import SECRET_TOKEN_KEY, DownloadPlan

JOB_API_VERSION = "batch/v1"
JOB_KIND = "Job"
DOWNLOAD_LABEL = "instantstart.aws/download"
DOWNLOADER_IMAGE = "public.ecr.aws/docker/library/python:3.12-slim"
MOUNT_PATH = "/s3"
BACKOFF_LIMIT = 2
# The downloader: huggingface_hub into the claim. `HF_HUB_DISABLE_PROGRESS_BARS` keeps the log readable.
DOWNLOAD_SCRIPT = (
    "pip install --quiet --no-cache-dir 'huggingface_hub>=0.30,<1' && "
    'hf download "$REPO_ID" --repo-type "$REPO_TYPE" --revision "$REVISION" --local-dir "$TARGET"'
)


def job_name(unique: str, repo_id: str) -> str:
    """`download-<repo>-<hash>`: a DNS label, one per download (a resume finds its own Job)."""
    slug = "".join(c if c.isalnum() else "-" for c in repo_id.split("/")[-1].lower()).strip("-")[:30].strip("-")
    digest = hashlib.sha256(unique.encode()).hexdigest()[:8]
    return f"download-{slug or 'repo'}-{digest}"


def token_secret(name: str, namespace: str, token: str) -> dict[str, Any]:
    """The Secret that holds a request's token under `SECRET_TOKEN_KEY`."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": {"name": name, "namespace": namespace, "labels": {MANAGED_LABEL: MANAGED_LABEL_VALUE}},
        "stringData": {SECRET_TOKEN_KEY: token},
    }


def download_job(plan: DownloadPlan) -> dict[str, Any]:
    """The downloader Job: one pod, the claim at /s3, the token (if any) from its Secret."""
    env: list[dict[str, Any]] = [
        {"name": "REPO_ID", "value": plan.repoId},
        {"name": "REPO_TYPE", "value": plan.repoType},
        {"name": "REVISION", "value": plan.revision},
        {"name": "TARGET", "value": f"{MOUNT_PATH}/{plan.key_prefix}"},
        {"name": "HF_HUB_DISABLE_PROGRESS_BARS", "value": "1"},
    ]
    if plan.tokenSecret:
        env.append(
            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": plan.tokenSecret, "key": SECRET_TOKEN_KEY}}}
        )
    labels = {MANAGED_LABEL: MANAGED_LABEL_VALUE, DOWNLOAD_LABEL: plan.jobName}
    return {
        "apiVersion": JOB_API_VERSION,
        "kind": JOB_KIND,
        "metadata": {"name": plan.jobName, "namespace": plan.namespace, "labels": labels},
        "spec": {
            "backoffLimit": BACKOFF_LIMIT,
            "activeDeadlineSeconds": plan.deadlineSeconds,
            "ttlSecondsAfterFinished": 86400,
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "downloader",
                            "image": DOWNLOADER_IMAGE,
                            "command": ["/bin/sh", "-c", DOWNLOAD_SCRIPT],
                            "env": env,
                            "volumeMounts": [{"name": "s3", "mountPath": MOUNT_PATH}],
                            "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
                        }
                    ],
                    "volumes": [{"name": "s3", "persistentVolumeClaim": {"claimName": plan.claimName}}],
                },
            },
        },
    }


def job_outcome(job: dict[str, Any]) -> tuple[str, str | None]:
    """("Succeeded" | "Failed" | "Running", the failure's reason and message) from the Job's status."""
    status = job.get("status") or {}
    for condition in status.get("conditions") or []:
        if condition.get("status") != "True":
            continue
        if condition.get("type") == "Complete":
            return "Succeeded", None
        if condition.get("type") == "Failed":
            reason = condition.get("reason") or "Failed"
            message = condition.get("message")
            return "Failed", f"{reason}: {message}" if message else reason
    if int(status.get("succeeded") or 0) > 0:
        return "Succeeded", None
    return "Running", None
