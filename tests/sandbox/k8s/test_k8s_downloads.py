"""The simulated downloader on the emulator and moto's S3: a download Job's files land under its target in the
bucket behind its claim and the Job completes; a fault fails one download with its message; the job writers' group
may write a token's Secret but read one only where a namespace's Secret reader Role lets it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from controlplane.core.downloads.manifest import download_job, job_outcome
from controlplane.core.storage.namespace import secret_reader_rbac
from controlplane.core.storage.objects import storage_objects
from controlplane.core.workload_access import JOB_WRITERS_GROUP, job_writer_rbac
from controlplane.models.downloads import DownloadPlan
from controlplane.models.storage import StoragePlan
from sandbox.k8s.downloads import DownloaderSimulation
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.rbac import ApiAccess, rbac_allows

CLUSTER = "eks-cluster-sim"
BUCKET = "instantstart-sim-data"
REGION = "us-west-2"


@pytest.fixture
def world() -> Iterator[tuple[DownloaderSimulation, ClusterStore]]:
    with mock_aws():
        s3 = boto3.client("s3", region_name=REGION)
        s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
        emulator = KubernetesEmulator()
        emulator.add_cluster(CLUSTER)
        downloads = DownloaderSimulation(emulator, seconds=0.01)
        downloads.install()
        store = emulator.store(CLUSTER)
        plan = StoragePlan(bucketName=BUCKET, bucketSource="created", claimName="s3-claim", namespace="default")
        for obj in storage_objects(plan, "sim", REGION):
            store.put(obj)
        yield downloads, store


def plan(repo_id: str) -> DownloadPlan:
    return DownloadPlan(
        jobName=f"download-{repo_id.split('/')[-1].lower()}",
        namespace="default",
        claimName="s3-claim",
        bucketName=BUCKET,
        repoId=repo_id,
        repoType="model",
        revision="main",
        prefix="models",
        deadlineSeconds=600,
    )


def finished(store: ClusterStore, name: str) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        job = store.get("batch", "v1", "jobs", "default", name) or {}
        if job_outcome(job)[0] != "Running" or time.monotonic() > deadline:
            return job
        time.sleep(0.01)


def keys(prefix: str) -> list[str]:
    listed = boto3.client("s3", region_name=REGION).list_objects_v2(Bucket=BUCKET, Prefix=prefix)
    return [item["Key"] for item in listed.get("Contents", [])]


def test_a_download_job_puts_its_files_under_its_target_and_completes(world) -> None:
    _, store = world
    store.put(download_job(plan("Qwen/Qwen2.5-0.5B")))
    assert job_outcome(finished(store, "download-qwen2.5-0.5b")) == ("Succeeded", None)
    assert keys("models/") == ["models/Qwen/Qwen2.5-0.5B/README.md", "models/Qwen/Qwen2.5-0.5B/config.json"]


def test_a_fault_fails_one_download_with_its_message(world) -> None:
    downloads, store = world
    downloads.fail("org/gated", "401 Client Error")
    store.put(download_job(plan("org/gated")))
    outcome, reason = job_outcome(finished(store, "download-gated"))
    assert (outcome, keys("models/org/")) == ("Failed", [])
    assert reason is not None and reason.startswith("BackoffLimitExceeded") and "401 Client Error" in reason
    store.delete("batch", "v1", "jobs", "default", "download-gated")
    store.put(download_job(plan("org/gated")))
    assert job_outcome(finished(store, "download-gated"))[0] == "Succeeded"


def test_the_job_writers_group_may_write_a_secret_but_never_read_one(world) -> None:
    _, store = world
    for obj in job_writer_rbac():
        store.put(obj)
    groups = (JOB_WRITERS_GROUP,)
    assert rbac_allows(store, groups, ApiAccess("create", "", "secrets"))
    assert rbac_allows(store, groups, ApiAccess("delete", "", "secrets"))
    assert not any(rbac_allows(store, groups, ApiAccess(verb, "", "secrets")) for verb in ("get", "list", "watch"))


def test_the_job_writers_group_reads_secrets_only_in_namespaces_with_the_secret_reader(world) -> None:
    _, store = world
    for obj in [*job_writer_rbac(), *secret_reader_rbac("team-a")]:
        store.put(obj)
    groups = (JOB_WRITERS_GROUP,)
    assert rbac_allows(store, groups, ApiAccess("get", "", "secrets", "team-a"))
    assert not rbac_allows(store, groups, ApiAccess("list", "", "secrets", "team-a"))
    assert not rbac_allows(store, groups, ApiAccess("get", "", "secrets", "kube-system"))
    assert not rbac_allows(store, groups, ApiAccess("get", "", "secrets"))
    assert not rbac_allows(store, ("someone-else",), ApiAccess("get", "", "secrets", "team-a"))
