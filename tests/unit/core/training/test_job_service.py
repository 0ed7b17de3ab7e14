"""The training job service against in-memory fakes: what it submits, how it reads a job back, and each refusal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.confirmations import Confirmations
from controlplane.core.features.catalog.training_operator import TRAINING_OPERATOR_ADDON
from controlplane.core.ports.kubernetes import KubernetesEvent, KubernetesNode, KubernetesPod
from controlplane.core.ports.queues import KueueReadRefusedError, QueuedWorkload
from controlplane.core.registry import ClusterService
from controlplane.core.team_targets import TeamNotFoundError, TeamTargets
from controlplane.core.training.manifest import JOB_LABEL
from controlplane.core.training.service import (
    JobNameInUseError,
    JobNotFoundError,
    StorageClaimMissingError,
    TrainingJobService,
)
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import (
    ConfirmationRequiredError,
    FeatureNotEnabledError,
    InvalidRequestError,
    NotFoundError,
)
from controlplane.models.training import JobPhase, SubmitJobRequest
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.governance import InMemoryGovernanceGateway, every_namespace_ready
from tests.fakes.hyperpod import InMemoryHyperPodGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.persistence import FakeClock, InMemoryClusterRegistry, InMemoryConfirmationStore
from tests.fakes.queues import InMemoryKueueGateway
from tests.fakes.workloads import FakePod, InMemoryWorkloadGateway

EKS_NAME = "eks-cluster-demo"


def node(name: str, instance_type: str, group: str, gpus: int, capacity_type: str = "on-demand") -> KubernetesNode:
    labels = {
        "node.kubernetes.io/instance-type": instance_type,
        "sagemaker.amazonaws.com/instance-group-name": group,
        "sagemaker.amazonaws.com/capacity-type": capacity_type,
    }
    capacity = {"nvidia.com/gpu": str(gpus)} if gpus else {}
    return KubernetesNode(name, True, True, labels, capacity, capacity)


class World:
    def __init__(self, record: ClusterRecord, clock: FakeClock) -> None:
        self.registry = InMemoryClusterRegistry()
        self.registry.create(record)
        self.eks = InMemoryEksGateway()
        self.cluster = self.eks.add_cluster(EKS_NAME)
        self.eks.add_addon(EKS_NAME, TRAINING_OPERATOR_ADDON)
        self.kubernetes = InMemoryKubernetesGateway()
        self.kubernetes.api(EKS_NAME).nodes = [
            node("hyperpod-i-1", "ml.g5.12xlarge", "workers", 4),
            node("hyperpod-i-2", "ml.g5.12xlarge", "workers", 4),
            node("hyperpod-i-3", "ml.g6.xlarge", "spot-workers", 1, capacity_type="spot"),
        ]
        pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "s3-claim", "namespace": "ml"}}
        self.kubernetes.apply(self.cluster, "us-west-2", [pvc])
        self.workloads = InMemoryWorkloadGateway(self.kubernetes)
        confirmations = Confirmations(InMemoryConfirmationStore(), clock)
        clusters = ClusterService(self.registry, lambda _: self.eks, lambda _: None, self.kubernetes, clock)
        self.hyperpod = InMemoryHyperPodGateway()
        self.governance = InMemoryGovernanceGateway()
        targets = TeamTargets(
            lambda _: self.eks, lambda _: self.hyperpod, lambda _: self.governance, every_namespace_ready
        )
        self.queues = InMemoryKueueGateway()
        self.service = TrainingJobService(
            clusters,
            lambda _: self.eks,
            self.kubernetes,
            self.workloads,
            self.workloads,
            confirmations,
            targets,
            self.queues,
        )

    def add_team(self, team: str, *priorities: str) -> None:
        """Task governance on, the team's quota and namespace, and the scheduler policy's priority classes."""
        self.eks.add_addon(EKS_NAME, "amazon-sagemaker-hyperpod-taskgovernance")
        arn = self.hyperpod.put_cluster("hp-cluster-demo").arn
        self.governance.put_team(arn, team)
        self.governance.put_priorities(arn, *priorities)
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"hyperpod-ns-{team}"}}
        self.kubernetes.apply(self.cluster, "us-west-2", [namespace])

    def job(self, name: str) -> dict[str, Any] | None:
        return self.kubernetes.get(
            self.cluster, "us-west-2", "sagemaker.amazonaws.com/v1", "HyperPodPyTorchJob", name, "ml"
        )


@pytest.fixture
def world(make_record: Callable[..., ClusterRecord], clock: FakeClock) -> World:
    return World(make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim"), clock)


def request(**fields: Any) -> SubmitJobRequest:
    values: dict[str, Any] = {
        "name": "llama",
        "image": "train:1",
        "nodes": 2,
        "gpusPerNode": 4,
        "instanceType": "ml.g5.12xlarge",
    }
    return SubmitJobRequest.model_validate({**values, **fields})


def test_submit_creates_the_job_in_the_claims_namespace_with_the_default_recovery_budget(world: World) -> None:
    detail = world.service.submit("demo", request())

    job = world.job("llama")
    assert job is not None
    assert job["spec"]["runPolicy"] == {
        "jobMaxRetryCount": 5,
        "restartPolicy": {"numRestartBeforeFullJobRestart": 3, "evalPeriodSeconds": 21600, "maxFullJobRestarts": 1},
        "cleanPodPolicy": "None",
    }
    assert detail.namespace == "ml"
    assert detail.phase == JobPhase.PENDING
    assert (detail.nodes, detail.gpusPerNode) == (2, 4)
    assert detail.restartBudget.restartsBeforeFullJobRestart == 3


def test_submit_mounts_fsx_at_fsx_when_the_cluster_has_it(
    world: World, make_record: Callable[..., ClusterRecord]
) -> None:
    world.registry.save(make_record("storage", storageClaim="ml/s3-claim", fsxClaim="ml/fsx-claim"))

    world.service.submit("demo", request())

    spec = world.job("llama")["spec"]["replicaSpecs"][0]["template"]["spec"]  # type: ignore[index]
    assert {"name": "fsx", "mountPath": "/fsx"} in spec["containers"][0]["volumeMounts"]


def service_account(namespace: str) -> dict[str, Any]:
    """The trainingOperator feature's ServiceAccount for jobs, in `namespace`."""
    metadata = {"name": "instantstart-jobs", "namespace": namespace}
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}


def test_submitted_pods_run_as_the_jobs_service_account_of_the_claims_namespace(world: World) -> None:
    world.kubernetes.apply(world.cluster, "us-west-2", [service_account("ml")])

    world.service.submit("demo", request())

    spec = world.job("llama")["spec"]["replicaSpecs"][0]["template"]["spec"]  # type: ignore[index]
    assert spec["serviceAccountName"] == "instantstart-jobs"


def test_submitted_pods_keep_the_default_service_account_without_the_jobs_one(world: World) -> None:
    world.kubernetes.apply(world.cluster, "us-west-2", [service_account("elsewhere")])

    world.service.submit("demo", request())

    spec = world.job("llama")["spec"]["replicaSpecs"][0]["template"]["spec"]  # type: ignore[index]
    assert "serviceAccountName" not in spec


def test_submit_refuses_without_the_training_operator_and_names_the_feature(world: World) -> None:
    world.eks.addons.clear()

    with pytest.raises(FeatureNotEnabledError, match="trainingOperator"):
        world.service.submit("demo", request())


def test_submit_refuses_more_gpus_per_node_than_the_instance_type_has(world: World) -> None:
    with pytest.raises(InvalidRequestError, match="at most 4"):
        world.service.submit("demo", request(gpusPerNode=8))


@pytest.mark.parametrize(
    ("placement", "names"),
    [
        ({"instanceType": "ml.p5.48xlarge"}, "ml.g5.12xlarge, ml.g6.xlarge"),
        ({"instanceGroup": "gpu"}, "spot-workers, workers"),
    ],
)
def test_submit_refuses_a_placement_the_cluster_lacks_and_lists_what_it_has(
    world: World, placement: dict[str, str], names: str
) -> None:
    with pytest.raises(InvalidRequestError, match=names):
        world.service.submit("demo", request(**{"instanceType": None, **placement}))


def test_submit_refuses_a_cluster_without_a_storage_claim(
    world: World, make_record: Callable[..., ClusterRecord]
) -> None:
    world.registry.save(make_record("eks", "hyperpod"))

    with pytest.raises(StorageClaimMissingError, match="POST /clusters/demo/storage"):
        world.service.submit("demo", request())


def test_submit_refuses_when_the_claim_is_gone_from_the_cluster(world: World) -> None:
    world.kubernetes.api(EKS_NAME).objects.clear()

    with pytest.raises(StorageClaimMissingError, match="ml/s3-claim"):
        world.service.submit("demo", request())


def test_submit_refuses_deep_health_checked_nodes_only_where_none_passed_the_checks(world: World) -> None:
    with pytest.raises(InvalidRequestError, match="deep health checks"):
        world.service.submit("demo", request(deepHealthCheckedOnly=True))


def test_submit_places_on_deep_health_checked_nodes_when_some_passed(world: World) -> None:
    world.kubernetes.api(EKS_NAME).nodes[0].labels["sagemaker.amazonaws.com/deep-health-check-status"] = "Passed"

    world.service.submit("demo", request(deepHealthCheckedOnly=True))

    template = world.job("llama")["spec"]["replicaSpecs"][0]["template"]["spec"]  # type: ignore[index]
    assert "affinity" in template


def test_submit_refuses_elastic_training_on_spot_capacity(world: World) -> None:
    elastic = {"minReplicas": 1, "maxReplicas": 2}
    with pytest.raises(InvalidRequestError, match="spot"):
        world.service.submit(
            "demo", request(instanceType=None, instanceGroup="spot-workers", gpusPerNode=1, elastic=elastic)
        )


def test_submit_refuses_elastic_training_with_tiered_checkpointing(world: World) -> None:
    with pytest.raises(InvalidRequestError, match="do not compose"):
        world.service.submit("demo", request(elastic={"minReplicas": 1, "maxReplicas": 2}, tieredCheckpointing=True))


def test_submit_refuses_a_name_already_in_use(world: World) -> None:
    world.service.submit("demo", request())

    with pytest.raises(JobNameInUseError, match="choose another name"):
        world.service.submit("demo", request())


def test_detail_shows_pods_restarts_against_the_budget_and_the_last_events(world: World) -> None:
    world.service.submit("demo", request())
    job = world.job("llama")
    assert job is not None
    job["status"] = {"conditions": [{"type": "Running", "status": "True"}], "restartCount": 1}
    world.kubernetes.apply(world.cluster, "us-west-2", [job])
    pod = KubernetesPod("llama-pods-0", "hyperpod-i-1", "Running", 1)
    world.workloads.of(EKS_NAME).pods.append(FakePod("ml", {JOB_LABEL: "llama"}, pod, "step 1\nstep 2\n"))
    events = [KubernetesEvent("Normal", f"Reason{i}", "m", f"2026-01-01T00:00:{i:02d}Z") for i in range(12)]
    world.workloads.of(EKS_NAME).events[("ml", "llama")] = events

    detail = world.service.get("demo", "llama")

    assert detail.phase == JobPhase.RUNNING
    assert (detail.restartBudget.restarts, detail.restartBudget.restartsBeforeFullJobRestart) == (1, 3)
    assert [(p.name, p.node, p.phase) for p in detail.pods] == [("llama-pods-0", "hyperpod-i-1", "Running")]
    assert [e.reason for e in detail.events] == [f"Reason{i}" for i in range(2, 12)]


def test_logs_read_the_first_pod_unless_another_is_named(world: World) -> None:
    world.service.submit("demo", request())
    for index in range(2):
        pod = KubernetesPod(f"llama-pods-{index}", None, "Running", 0)
        world.workloads.of(EKS_NAME).pods.append(FakePod("ml", {JOB_LABEL: "llama"}, pod, f"pod {index}\nline\n"))

    logs = world.service.logs("demo", "llama", tail_lines=1, since_seconds=30)

    assert (logs.pod, logs.lines, logs.pods) == ("llama-pods-0", ["line"], ["llama-pods-0", "llama-pods-1"])
    assert world.workloads.log_requests == [("llama-pods-0", 1, 30)]
    with pytest.raises(NotFoundError, match="llama-pods-0, llama-pods-1"):
        world.service.logs("demo", "llama", pod="other")


def test_a_pod_gone_before_its_log_is_read_has_no_lines_and_leaves_the_list(world: World) -> None:
    """A job's pods go when it ends (cleanPodPolicy All): a read racing that was a 500 (seen in CI)."""
    world.service.submit("demo", request())
    for index in range(2):
        pod = KubernetesPod(f"llama-pods-{index}", None, "Running", 0)
        world.workloads.of(EKS_NAME).pods.append(FakePod("ml", {JOB_LABEL: "llama"}, pod, "line\n"))
    world.workloads.of(EKS_NAME).gone_pods.add("llama-pods-0")

    logs = world.service.logs("demo", "llama")

    assert (logs.pod, logs.lines, logs.pods) == ("llama-pods-0", [], ["llama-pods-1"])


def test_a_job_keeps_its_pods_and_so_their_logs_after_it_ends_unless_asked_otherwise(world: World) -> None:
    """Issue 30, finding 3: after Succeeded, job_get_logs returned nothing (pods removed by cleanPodPolicy All)."""
    world.service.submit("demo", request())
    job = world.job("llama")
    assert job is not None and job["spec"]["runPolicy"]["cleanPodPolicy"] == "None"


def test_a_finished_job_whose_pods_were_deleted_says_why_its_log_is_gone_and_how_to_keep_it(world: World) -> None:
    world.service.submit("demo", request(runPolicy={"cleanPodPolicy": "All"}))
    job = world.job("llama")
    assert job is not None
    job["status"] = {"conditions": [{"type": "Completed", "status": "True"}]}
    world.kubernetes.apply(world.cluster, "us-west-2", [job])

    logs = world.service.logs("demo", "llama")

    assert (logs.pods, logs.lines) == ([], [])
    assert logs.note is not None and logs.note.startswith("The job Succeeded, and its pods were deleted when it ended")
    assert "cleanPodPolicy All" in logs.note and "runPolicy.cleanPodPolicy None" in logs.note


def test_a_job_without_pods_yet_says_so_and_names_the_wait(world: World) -> None:
    world.service.submit("demo", request())

    assert (
        world.service.logs("demo", "llama").note
        == "The job is Pending and has no pod yet; job_wait follows it until it ends."
    )


def test_list_pages_the_jobs(world: World) -> None:
    for name in ("a-job", "b-job", "c-job"):
        world.service.submit("demo", request(name=name))

    first = world.service.list_jobs("demo", limit=2)
    second = world.service.list_jobs("demo", limit=2, token=first.continue_)

    assert [job.name for job in first.jobs] == ["a-job", "b-job"]
    assert ([job.name for job in second.jobs], second.continue_) == (["c-job"], None)


def test_list_shows_each_jobs_restarts_against_its_budget(world: World) -> None:
    world.service.submit("demo", request())
    job = world.job("llama")
    assert job is not None
    job["status"] = {"restartCount": 2, "restartStatus": {"fullJobRestartCount": 1}}
    world.kubernetes.apply(world.cluster, "us-west-2", [job])

    [listed] = world.service.list_jobs("demo").jobs

    budget = listed.restartBudget
    assert (budget.restarts, budget.restartsBeforeFullJobRestart) == (2, 3)
    assert (budget.fullJobRestarts, budget.maxFullJobRestarts, budget.jobMaxRetryCount) == (1, 1, 5)


def suspend(world: World, name: str) -> None:
    """Kueue's webhook suspended the job: it waits for its team's quota."""
    job = world.job(name)
    assert job is not None
    job["spec"]["runPolicy"]["suspend"] = True
    world.kubernetes.apply(world.cluster, "us-west-2", [job])


def pending_workload(job: str, message: str | None, namespace: str = "ml") -> QueuedWorkload:
    return QueuedWorkload(
        f"hyperpodpytorchjob-{job}-1a2b3",
        namespace,
        "HyperPodPyTorchJob",
        job,
        "hyperpod-ns-ml-localqueue",
        None,
        False,
        False,
        "Pending" if message else None,
        message,
        None,
    )


WAITING = (
    "couldn't assign flavors to pod set pods: insufficient unused quota for nvidia.com/gpu in flavor x, 4 more needed"
)


def test_a_job_kueue_holds_is_queued_with_its_workloads_reason_in_the_list_and_the_detail(world: World) -> None:
    world.service.submit("demo", request())
    world.service.submit("demo", request(name="other"))
    suspend(world, "llama")
    world.queues.workload_list[EKS_NAME] = [pending_workload("llama", WAITING)]

    listed = {job.name: job for job in world.service.list_jobs("demo").jobs}
    detail = world.service.get("demo", "llama")

    assert (listed["llama"].phase, listed["llama"].waitingReason) == (JobPhase.QUEUED, f"Pending: {WAITING}")
    assert (listed["other"].phase, listed["other"].waitingReason) == (JobPhase.PENDING, None)
    assert (detail.phase, detail.waitingReason) == (JobPhase.QUEUED, f"Pending: {WAITING}")


def test_a_same_named_workload_of_another_namespace_lends_no_reason_to_a_listed_job(world: World) -> None:
    world.service.submit("demo", request())
    suspend(world, "llama")
    world.queues.workload_list[EKS_NAME] = [pending_workload("llama", WAITING, namespace="someone-else")]

    listed = {job.name: job for job in world.service.list_jobs("demo").jobs}

    assert listed["llama"].waitingReason is not None and "names no priority class" in listed["llama"].waitingReason


def test_a_queued_job_without_a_workload_points_at_its_events(world: World) -> None:
    world.service.submit("demo", request())
    suspend(world, "llama")

    detail = world.service.get("demo", "llama")

    assert detail.phase == JobPhase.QUEUED
    assert detail.waitingReason is not None and "names no priority class" in detail.waitingReason


def test_a_queued_job_whose_workloads_rbac_refuses_stays_queued_saying_why_its_reason_is_unknown(world: World) -> None:
    world.service.submit("demo", request())
    suspend(world, "llama")
    world.queues.refusal = KueueReadRefusedError("workloads.kueue.x-k8s.io: Forbidden")

    [listed] = world.service.list_jobs("demo").jobs
    detail = world.service.get("demo", "llama")

    for job in (listed, detail):
        assert job.phase == JobPhase.QUEUED
        assert job.waitingReason is not None
        assert "why is unknown: the cluster's RBAC refuses the view role Kueue's workloads" in job.waitingReason
        assert KueueReadRefusedError.REMEDY in job.waitingReason


def test_jobs_kueue_does_not_hold_cost_no_workload_read(world: World) -> None:
    world.service.submit("demo", request())

    world.service.list_jobs("demo")

    assert world.queues.reads == 0


ALICE = Actor("alice", Role.OPERATOR)


def test_delete_plans_first_then_deletes_with_the_plans_token(world: World) -> None:
    world.service.submit("demo", request())

    plan = world.service.plan_delete("demo", "llama", ALICE)
    assert world.job("llama") is not None
    assert [(a.action, a.name) for a in plan.actions] == [("delete", "ml/llama")]
    assert plan.confirmationToken
    done = world.service.delete("demo", "llama", plan.confirmationToken, ALICE)

    assert (done.dryRun, world.job("llama")) == (False, None)
    with pytest.raises(JobNotFoundError):
        world.service.plan_delete("demo", "llama", ALICE)


def test_delete_refuses_without_a_valid_token(world: World) -> None:
    world.service.submit("demo", request())

    with pytest.raises(ConfirmationRequiredError, match="without a token"):
        world.service.delete("demo", "llama", "forged", ALICE)
    assert world.job("llama") is not None


QUEUE, PRIORITY = "kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/priority-class"


def team_job(world: World, name: str = "llama") -> dict[str, Any] | None:
    return world.kubernetes.get(
        world.cluster, "us-west-2", "sagemaker.amazonaws.com/v1", "HyperPodPyTorchJob", name, "hyperpod-ns-ml-a"
    )


def test_a_team_job_runs_in_the_teams_namespace_labelled_for_its_queue_and_priority(world: World) -> None:
    world.add_team("ml-a", "low", "high")

    detail = world.service.submit("demo", request(team="ml-a", priority="high"))

    job = team_job(world)
    assert job is not None and world.job("llama") is None
    wanted = {QUEUE: "hyperpod-ns-ml-a-localqueue", PRIORITY: "high-priority"}
    assert wanted.items() <= job["metadata"]["labels"].items()
    assert wanted.items() <= job["spec"]["replicaSpecs"][0]["template"]["metadata"]["labels"].items()
    assert detail.namespace == "hyperpod-ns-ml-a"


def test_a_team_job_runs_as_the_jobs_service_account_only_while_the_job_namespace_still_has_it(world: World) -> None:
    world.add_team("ml-a")
    world.kubernetes.apply(world.cluster, "us-west-2", [service_account("ml"), service_account("hyperpod-ns-ml-a")])
    world.service.submit("demo", request(team="ml-a"))
    world.kubernetes.delete(world.cluster, "us-west-2", [service_account("ml")])  # the feature disabled since
    world.service.submit("demo", request(name="later", team="ml-a"))

    def account(name: str) -> str | None:
        return team_job(world, name)["spec"]["replicaSpecs"][0]["template"]["spec"].get("serviceAccountName")  # type: ignore[index]

    assert (account("llama"), account("later")) == ("instantstart-jobs", None)


def test_a_team_ray_job_carries_the_labels_on_the_object_and_every_pod_template(world: World) -> None:
    world.add_team("ml-a", "high")
    world.kubernetes.apply(
        world.cluster,
        "us-west-2",
        [
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "kuberay-operator", "namespace": "kuberay-operator"},
            }
        ],
    )

    world.service.submit("demo", request(kind="RayJob", command=["python", "t.py"], team="ml-a", priority="high"))

    [job] = world.workloads.list_objects(world.cluster, "us-west-2", "ray.io/v1", "RayJob", None, 10, None).items
    cluster = job["spec"]["rayClusterSpec"]
    templates = [cluster["headGroupSpec"]["template"], cluster["workerGroupSpecs"][0]["template"]]
    assert job["metadata"]["namespace"] == "hyperpod-ns-ml-a"
    for labels in [job["metadata"]["labels"], *(template["metadata"]["labels"] for template in templates)]:
        assert (labels[QUEUE], labels[PRIORITY]) == ("hyperpod-ns-ml-a-localqueue", "high-priority")


def test_an_unknown_team_is_refused_and_nothing_is_created(world: World) -> None:
    world.add_team("ml-a")

    with pytest.raises(TeamNotFoundError, match=r"teams: ml-a"):
        world.service.submit("demo", request(team="ml-z"))
    assert world.service.list_jobs("demo").jobs == []


def test_a_job_name_is_unique_across_the_claims_and_the_teams_namespaces(world: World) -> None:
    world.add_team("ml-a")
    world.service.submit("demo", request())

    with pytest.raises(JobNameInUseError, match="already exists in namespace ml"):
        world.service.submit("demo", request(team="ml-a"))
    assert team_job(world) is None


def test_a_team_job_is_listed_read_and_deleted_by_its_name_alone(world: World) -> None:
    world.add_team("ml-a")
    world.service.submit("demo", request(name="shared"))
    world.service.submit("demo", request(team="ml-a"))

    assert [job.name for job in world.service.list_jobs("demo").jobs] == ["llama", "shared"]
    assert world.service.get("demo", "llama").namespace == "hyperpod-ns-ml-a"
    plan = world.service.plan_delete("demo", "llama", ALICE)
    assert [a.name for a in plan.actions] == ["hyperpod-ns-ml-a/llama"]
    assert plan.confirmationToken
    world.service.delete("demo", "llama", plan.confirmationToken, ALICE)
    assert team_job(world) is None


def test_jobs_outside_the_claims_and_the_teams_namespaces_are_not_the_clusters_jobs(world: World) -> None:
    world.service.submit("demo", request())
    stray = {**(world.job("llama") or {}), "metadata": {"name": "stray", "namespace": "kube-system"}}
    world.kubernetes.apply(world.cluster, "us-west-2", [stray])

    assert [job.name for job in world.service.list_jobs("demo").jobs] == ["llama"]
    with pytest.raises(JobNotFoundError):
        world.service.get("demo", "stray")
