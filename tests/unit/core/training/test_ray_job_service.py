"""Ray jobs (RayJob, RayCluster) through the training job service against in-memory fakes: the KubeRay operator
refusal, the same placement refusals as any job, one name across the kinds, and list, detail, logs and delete."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.paging import encode_token
from controlplane.core.ports.kubernetes import KubernetesPod
from controlplane.core.training.manifest import JOB_LABEL
from controlplane.core.training.service import (
    JobNameInUseError,
    JobNotFoundError,
    StorageClaimMissingError,
)
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import FeatureNotEnabledError, InvalidRequestError
from controlplane.models.training import JobKind, JobPhase, SubmitJobRequest
from tests.fakes.persistence import FakeClock
from tests.fakes.workloads import FakePod
from tests.unit.core.training.test_job_service import EKS_NAME, World

ALICE = Actor("alice", Role.OPERATOR)
KUBERAY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "kuberay-operator", "namespace": "kuberay-operator"},
}


@pytest.fixture
def world(make_record: Callable[..., ClusterRecord], clock: FakeClock) -> World:
    world = World(make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim"), clock)
    world.kubernetes.apply(world.cluster, "us-west-2", [KUBERAY])
    return world


def ray_job(**fields: Any) -> SubmitJobRequest:
    values: dict[str, Any] = {
        "name": "verl",
        "kind": "RayJob",
        "image": "verl:1",
        "command": ["python3", "-m", "verl.trainer.main_ppo"],
        "nodes": 2,
        "gpusPerNode": 4,
        "instanceType": "ml.g5.12xlarge",
    }
    return SubmitJobRequest.model_validate({**values, **fields})


def stored(world: World, kind: str, name: str) -> dict[str, Any] | None:
    return world.kubernetes.get(world.cluster, "us-west-2", "ray.io/v1", kind, name, "ml")


def test_submit_creates_the_ray_job_in_the_claims_namespace(world: World) -> None:
    detail = world.service.submit("demo", ray_job())

    job = stored(world, "RayJob", "verl")
    assert job is not None
    assert job["spec"]["entrypoint"] == "python3 -m verl.trainer.main_ppo"
    assert (detail.kind, detail.phase, detail.nodes, detail.gpusPerNode) == (JobKind.RAY_JOB, JobPhase.PENDING, 2, 4)
    assert (detail.namespace, detail.image, detail.restartBudget) == ("ml", "verl:1", None)


def test_submit_refuses_without_the_kuberay_operator_and_names_the_feature(world: World) -> None:
    world.kubernetes.api(EKS_NAME).objects.pop("Deployment/kuberay-operator/kuberay-operator")

    with pytest.raises(FeatureNotEnabledError, match="'kuberayOperator' feature") as refused:
        world.service.submit("demo", ray_job(kind="RayCluster", command=[]))
    assert refused.value.details == {"feature": "kuberayOperator"}


def test_a_ray_job_needs_the_kuberay_operator_not_the_training_operator(world: World) -> None:
    world.eks.addons.clear()

    assert world.service.submit("demo", ray_job()).kind == JobKind.RAY_JOB


def test_submit_refuses_more_gpus_per_node_than_the_instance_type_has(world: World) -> None:
    with pytest.raises(InvalidRequestError, match="at most 4"):
        world.service.submit("demo", ray_job(gpusPerNode=8))


@pytest.mark.parametrize(
    ("placement", "names"),
    [({"instanceType": "ml.p5.48xlarge"}, "ml.g5.12xlarge, ml.g6.xlarge"), ({"instanceGroup": "gpu"}, "workers")],
)
def test_submit_refuses_a_type_or_group_the_cluster_lacks(world: World, placement: dict[str, str], names: str) -> None:
    with pytest.raises(InvalidRequestError, match=names):
        world.service.submit("demo", ray_job(**{"instanceType": None, **placement}))


def test_submit_refuses_when_the_claim_is_missing(world: World) -> None:
    world.kubernetes.api(EKS_NAME).objects.pop("PersistentVolumeClaim/ml/s3-claim")

    with pytest.raises(StorageClaimMissingError, match="ml/s3-claim"):
        world.service.submit("demo", ray_job())


def test_a_name_is_unique_across_the_kinds(world: World) -> None:
    world.service.submit("demo", ray_job())

    with pytest.raises(JobNameInUseError, match="'verl'"):
        world.service.submit("demo", SubmitJobRequest(name="verl", image="t:1", instanceType="ml.g5.12xlarge"))
    with pytest.raises(JobNameInUseError):
        world.service.submit("demo", ray_job(kind="RayCluster", command=[]))


def test_list_pages_through_every_kind_and_leaves_out_a_ray_jobs_own_cluster(world: World) -> None:
    world.service.submit("demo", SubmitJobRequest(name="llama", image="t:1", instanceType="ml.g5.12xlarge"))
    world.service.submit("demo", ray_job(name="verl"))
    world.service.submit("demo", ray_job(name="ray", kind="RayCluster", command=[]))
    made_for_verl = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "verl-x7k2p", "namespace": "ml", "ownerReferences": [{"kind": "RayJob", "name": "verl"}]},
        "spec": {},
    }
    world.kubernetes.apply(world.cluster, "us-west-2", [made_for_verl])

    first = world.service.list_jobs("demo", limit=2)
    rest = world.service.list_jobs("demo", limit=2, token=first.continue_)

    assert [(job.kind, job.name) for job in first.jobs] == [
        (JobKind.HYPERPOD_PYTORCH_JOB, "llama"),
        (JobKind.RAY_JOB, "verl"),
    ]
    assert [(job.kind, job.name) for job in rest.jobs] == [(JobKind.RAY_CLUSTER, "ray")]
    assert rest.continue_ is None


@pytest.mark.parametrize("token", ["not-a-token", encode_token([7, None]), encode_token({"kind": 0})])
def test_list_refuses_a_continue_token_it_did_not_give(world: World, token: str) -> None:
    with pytest.raises(InvalidRequestError, match="continue token"):
        world.service.list_jobs("demo", token=token)


def test_detail_reads_the_ray_status_and_the_head_and_worker_pods(world: World) -> None:
    world.service.submit("demo", ray_job())
    job = stored(world, "RayJob", "verl")
    assert job is not None
    job["status"] = {"jobDeploymentStatus": "Running", "jobStatus": "RUNNING"}
    world.kubernetes.apply(world.cluster, "us-west-2", [job])
    pods = (("verl-x7k2p-head-abcde", "hyperpod-i-1"), ("verl-x7k2p-workers-worker-fghij", "hyperpod-i-2"))
    for pod_name, node in pods:
        pod = KubernetesPod(pod_name, node, "Running", 0)
        world.workloads.of(EKS_NAME).pods.append(FakePod("ml", {JOB_LABEL: "verl"}, pod, "step 1\n"))

    detail = world.service.get("demo", "verl")
    logs = world.service.logs("demo", "verl")

    assert detail.phase == JobPhase.RUNNING
    assert [(p.name, p.node) for p in detail.pods] == [
        ("verl-x7k2p-head-abcde", "hyperpod-i-1"),
        ("verl-x7k2p-workers-worker-fghij", "hyperpod-i-2"),
    ]
    assert (logs.pod, logs.lines) == ("verl-x7k2p-head-abcde", ["step 1"])


def test_delete_plans_then_deletes_the_ray_job(world: World) -> None:
    world.service.submit("demo", ray_job())

    plan = world.service.plan_delete("demo", "verl", ALICE)
    assert [(a.resource, a.name) for a in plan.actions] == [("RayJob", "ml/verl")]
    assert plan.confirmationToken
    world.service.delete("demo", "verl", plan.confirmationToken, ALICE)

    assert stored(world, "RayJob", "verl") is None
    with pytest.raises(JobNotFoundError):
        world.service.get("demo", "verl")
