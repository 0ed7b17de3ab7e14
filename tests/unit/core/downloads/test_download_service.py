"""Downloads against in-memory fakes: the operation a request starts (its token in a Secret, nowhere else), the
Job its steps run and wait for, a failed Job failing the operation and a resume starting it again, and the claim's
contents by prefix."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.downloads.manifest import JOB_API_VERSION, JOB_KIND
from controlplane.core.downloads.service import DownloadService
from controlplane.core.downloads.steps import DownloadFailedError, DownloadSteps
from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.core.operations.service import OperationService
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.registry import ClusterService
from controlplane.core.secret_references import SecretNotFoundError
from controlplane.core.training.service import StorageClaimMissingError
from controlplane.models.clusters import ClusterRecord
from controlplane.models.downloads import OWNED_SECRET_LABEL, DownloadRequest
from controlplane.models.errors import (
    ClusterAccessDeniedError,
    ClusterBusyError,
    ForeignResourceError,
    InvalidRequestError,
    WaitTimeoutError,
)
from controlplane.models.operations import OperationKind
from controlplane.models.workflow import DownloadToStorageInput, parse_input
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.persistence import FakeClock, InMemoryClusterRegistry, RecordingLauncher
from tests.fakes.storage import InMemoryBucketGateway
from tests.fakes.workloads import InMemorySecretGateway, InMemoryWorkloadGateway

EKS_NAME = "eks-cluster-demo"
TOKEN = "hf_sandboxSecretToken0123456789"
ACTOR = Actor("alice", Role.OPERATOR)
OWNED = {"app.kubernetes.io/managed-by": "instantstart"}


class World:
    def __init__(self, registry: InMemoryClusterRegistry, operations: OperationService, clock: FakeClock) -> None:
        self.eks = InMemoryEksGateway()
        self.cluster = self.eks.add_cluster(EKS_NAME)
        self.kubernetes = InMemoryKubernetesGateway()
        self.workloads = InMemoryWorkloadGateway(self.kubernetes)
        self.buckets = InMemoryBucketGateway()
        self.buckets.create_bucket("demo-data", {})
        clusters = ClusterService(registry, lambda _: self.eks, lambda _: None, self.kubernetes, clock)
        self.secret_reads = InMemorySecretGateway(self.kubernetes)
        self.service = DownloadService(
            clusters, operations, lambda _: self.eks, self.workloads, self.secret_reads, lambda _: self.buckets
        )
        poller = Poller(PollSettings(first_wait_seconds=5, max_wait_seconds=60), clock)
        self.steps = DownloadSteps(self.eks, self.kubernetes, poller)

    def job(self, ctx: DownloadToStorageInput) -> dict[str, Any] | None:
        plan = ctx.download
        return self.kubernetes.get(self.cluster, "us-west-2", JOB_API_VERSION, JOB_KIND, plan.jobName, plan.namespace)

    def set_job_status(self, ctx: DownloadToStorageInput, status: dict[str, Any]) -> None:
        job = self.job(ctx)
        assert job is not None
        self.kubernetes.apply(self.cluster, "us-west-2", [{**job, "status": status}])

    def secrets(self) -> list[dict[str, Any]]:
        return [obj for obj in self.kubernetes.api(EKS_NAME).objects.values() if obj["kind"] == "Secret"]

    def put_secret(self, name: str, labels: dict[str, str] | None = OWNED, data: tuple[str, ...] = ("token",)) -> None:
        metadata = {"name": name, "namespace": "ml", "labels": labels or {}}
        secret = {"apiVersion": "v1", "kind": "Secret", "metadata": metadata, "data": dict.fromkeys(data, "eA==")}
        self.kubernetes.apply(self.cluster, "us-west-2", [secret])


@pytest.fixture
def world(
    registry: InMemoryClusterRegistry,
    operations: OperationService,
    clock: FakeClock,
    make_record: Callable[..., ClusterRecord],
) -> World:
    registry.create(make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim", storageBucket="demo-data"))
    return World(registry, operations, clock)


def started_input(launcher: RecordingLauncher) -> DownloadToStorageInput:
    (kind, _, payload) = launcher.started[-1]
    assert kind == OperationKind.DOWNLOAD_TO_STORAGE
    ctx = parse_input(payload)
    assert isinstance(ctx, DownloadToStorageInput)
    return ctx


def test_a_download_starts_an_operation_whose_job_writes_the_repository_under_its_prefix(world, launcher):
    operation = world.service.start("demo", DownloadRequest(repoId="Qwen/Qwen2.5-0.5B"), ACTOR)
    ctx = started_input(launcher)
    assert operation.kind == OperationKind.DOWNLOAD_TO_STORAGE
    assert (ctx.download.namespace, ctx.download.claimName, ctx.download.key_prefix) == (
        "ml",
        "s3-claim",
        "models/Qwen/Qwen2.5-0.5B",
    )
    assert ctx.download.tokenSecret is None and world.secrets() == []

    assert world.steps.start_download_job(ctx)["action"] == "created"
    job = world.job(ctx)
    assert job is not None
    container = job["spec"]["template"]["spec"]["containers"][0]
    env = {item["name"]: item.get("value") for item in container["env"]}
    assert env["TARGET"] == "/s3/models/Qwen/Qwen2.5-0.5B"
    assert container["volumeMounts"] == [{"name": "s3", "mountPath": "/s3"}]
    assert job["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"] == {"claimName": "s3-claim"}
    assert "HF_TOKEN" not in env
    assert world.steps.start_download_job(ctx)["action"] == "unchanged"


def test_a_datasets_default_prefix_is_datasets():
    assert DownloadRequest(repoId="tatsu-lab/alpaca", repoType="dataset").target_prefix == "datasets"


def test_the_token_goes_into_a_secret_and_nowhere_else(world, launcher, repository):
    operation = world.service.start("demo", DownloadRequest(repoId="meta-llama/Llama-3.2-1B", token=TOKEN), ACTOR)
    ctx = started_input(launcher)
    (secret,) = world.secrets()
    assert secret["metadata"] == {
        "name": ctx.download.tokenSecret,
        "namespace": "ml",
        "labels": {"app.kubernetes.io/managed-by": "instantstart"},
    }
    assert secret["stringData"] == {"token": TOKEN}
    world.steps.start_download_job(ctx)
    job = world.job(ctx)
    env = {item["name"]: item for item in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["HF_TOKEN"]["valueFrom"] == {"secretKeyRef": {"name": ctx.download.tokenSecret, "key": "token"}}
    stored = repository.items[operation.operationId]
    for text in (json.dumps(job), json.dumps(launcher.started), stored.model_dump_json(), operation.model_dump_json()):
        assert TOKEN not in text
    assert TOKEN not in repr(DownloadRequest(repoId="x", token=TOKEN))


def test_a_named_secret_of_the_control_plane_is_used_as_it_is(world, launcher):
    world.put_secret("hf-token")
    world.service.start("demo", DownloadRequest(repoId="meta-llama/Llama-3.2-1B", tokenSecret="hf-token"), ACTOR)
    assert started_input(launcher).download.tokenSecret == "hf-token"
    assert [secret["metadata"]["name"] for secret in world.secrets()] == ["hf-token"]


@pytest.mark.parametrize(
    ("labels", "data", "error", "hint"),
    [
        (None, (), SecretNotFoundError, "kubectl create secret generic hf-token -n ml --from-literal=token=<token>"),
        (
            {},
            ("token",),
            ForeignResourceError,
            "kubectl label secret hf-token -n ml app.kubernetes.io/managed-by=instantstart",
        ),
        ({"team": "x"}, ("token",), ForeignResourceError, "lacks the label app.kubernetes.io/managed-by=instantstart"),
        (OWNED, ("password",), InvalidRequestError, "has no `token` key"),
    ],
)
def test_a_named_secret_that_is_missing_foreign_or_without_a_token_is_refused_before_anything_starts(
    world, launcher, labels, data, error, hint
):
    if labels is not None:
        world.put_secret("hf-token", labels, data)
    with pytest.raises(error) as refused:
        world.service.start("demo", DownloadRequest(repoId="meta-llama/Llama-3.2-1B", tokenSecret="hf-token"), ACTOR)
    assert "Secret ml/hf-token" in refused.value.message and hint in refused.value.message
    assert launcher.started == []


def test_the_label_the_contracts_name_is_the_control_planes_ownership_label():
    assert f"{MANAGED_LABEL}={MANAGED_LABEL_VALUE}" == OWNED_SECRET_LABEL


def test_a_namespace_whose_secrets_the_control_plane_may_not_read_is_refused_with_how_to_restore_it(world, launcher):
    world.put_secret("hf-token")
    world.secret_reads.refused_namespaces.add("ml")
    with pytest.raises(ClusterAccessDeniedError, match=r"instantstart-secret-reader.*POST /clusters/demo/storage"):
        world.service.start("demo", DownloadRequest(repoId="meta-llama/Llama-3.2-1B", tokenSecret="hf-token"), ACTOR)
    assert launcher.started == []


def test_a_resume_refuses_a_named_secret_that_is_no_longer_the_control_planes(world, launcher, registry):
    world.put_secret("hf-token")
    operation = world.service.start(
        "demo", DownloadRequest(repoId="meta-llama/Llama-3.2-1B", tokenSecret="hf-token"), ACTOR
    )
    world.put_secret("hf-token", {"team": "x"})
    with pytest.raises(ForeignResourceError, match="hf-token"):
        world.service.recheck(registry.find("demo"), operation)


def test_the_secret_is_removed_when_the_operation_cannot_start(world, launcher, registry, operations):
    world.service.start("demo", DownloadRequest(repoId="Qwen/Qwen2.5-0.5B"), ACTOR)
    with pytest.raises(ClusterBusyError):
        world.service.start("demo", DownloadRequest(repoId="meta-llama/Llama-3.2-1B", token=TOKEN), ACTOR)
    assert world.secrets() == []


def test_a_token_and_a_secret_name_together_are_refused():
    with pytest.raises(ValueError, match="either `token` or `tokenSecret`"):
        DownloadRequest(repoId="x", token=TOKEN, tokenSecret="hf-token")


@pytest.mark.parametrize("repo_id", ["../etc", "a/b/c", "", "x y"])
def test_a_repository_id_that_is_not_one_is_refused(repo_id):
    with pytest.raises(ValueError):
        DownloadRequest(repoId=repo_id)


def test_a_cluster_without_its_claim_is_refused(world, registry, make_record):
    registry.save(make_record("eks", "hyperpod"))
    with pytest.raises(StorageClaimMissingError, match="storage stage"):
        world.service.start("demo", DownloadRequest(repoId="Qwen/Qwen2.5-0.5B"), ACTOR)


def test_the_check_waits_until_the_job_completes(world, launcher, clock):
    world.service.start("demo", DownloadRequest(repoId="Qwen/Qwen2.5-0.5B"), ACTOR)
    ctx = started_input(launcher)
    world.steps.start_download_job(ctx)
    first = world.steps.check_download_job(ctx)
    assert (first.done, first.status) == (False, "Running")
    world.set_job_status(ctx, {"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]})
    assert world.steps.check_download_job(ctx).done


def test_a_failed_job_fails_the_operation_with_its_reason_and_a_resume_runs_it_again(world, launcher):
    world.service.start("demo", DownloadRequest(repoId="Qwen/Qwen2.5-0.5B"), ACTOR)
    ctx = started_input(launcher)
    world.steps.start_download_job(ctx)
    failed = {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "401 gated"}
    world.set_job_status(ctx, {"failed": 3, "conditions": [failed]})
    with pytest.raises(DownloadFailedError, match="BackoffLimitExceeded: 401 gated") as raised:
        world.steps.check_download_job(ctx)
    assert "resume" in raised.value.message
    assert world.steps.start_download_job(ctx)["action"] == "recreated"
    assert "status" not in world.job(ctx)


def test_the_wait_is_sized_to_the_download_and_gives_up_at_its_deadline(world, launcher, clock):
    world.service.start("demo", DownloadRequest(repoId="Qwen/Qwen2.5-0.5B", sizeGiB=100), ACTOR)
    ctx = started_input(launcher)
    assert ctx.download.deadlineSeconds == int((timedelta(minutes=20) + timedelta(minutes=100)).total_seconds())
    world.steps.start_download_job(ctx)
    first = world.steps.check_download_job(ctx)
    clock.sleep(ctx.download.deadlineSeconds)
    with pytest.raises(WaitTimeoutError, match=r"Qwen/Qwen2\.5-0\.5B"):
        world.steps.check_download_job(ctx.model_copy(update={"poll": first}))


def test_the_contents_are_listed_by_prefix_in_pages(world):
    for key in ("models/a/config.json", "models/a/model.safetensors", "models/b/config.json", "datasets/c/x"):
        world.buckets.put_object("demo-data", key, b"12345")
    first = world.service.list_contents("demo", "models/", limit=2)
    assert [o.key for o in first.objects] == ["models/a/config.json", "models/a/model.safetensors"]
    assert (first.bucketName, first.objects[0].size) == ("demo-data", 5)
    second = world.service.list_contents("demo", "models/", limit=2, token=first.continue_)
    assert ([o.key for o in second.objects], second.continue_) == (["models/b/config.json"], None)
