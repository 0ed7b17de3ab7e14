"""The model-server and model-pool services against in-memory fakes: what a deploy creates, train → deploy, the
explicit diff of an update (scaling to zero only with the token of its plan), the pool's rules (relabel, never
recreate; never scale in below the bound workers), and a chat completion that only reaches the cluster's own model
services."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from controlplane.core.auth import Actor, Role
from controlplane.core.confirmations import Confirmations
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.core.registry import ClusterService
from controlplane.core.secret_references import SecretNotFoundError
from controlplane.core.serving.manifest import BUSINESS_LABEL, DELETION_COST_ANNOTATION, MODEL_LABEL
from controlplane.core.serving.pool import ModelPoolService, ServiceBindingError
from controlplane.core.serving.service import (
    DeploymentNameInUseError,
    ModelNotReadyError,
    ModelServerError,
    ModelServerService,
    ModelServiceNotFoundError,
)
from controlplane.core.team_targets import PriorityClassNotFoundError, TeamTargets
from controlplane.models.chat import ChatCompletionRequest
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import ConfirmationRequiredError, ForeignResourceError, InvalidRequestError
from controlplane.models.serving import DeployModelRequest, PoolActionRequest, UpdateDeploymentRequest
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.governance import InMemoryGovernanceGateway, every_namespace_ready
from tests.fakes.hyperpod import InMemoryHyperPodGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.persistence import FakeClock, InMemoryClusterRegistry, InMemoryConfirmationStore
from tests.fakes.queues import InMemoryKueueGateway
from tests.fakes.serving import InMemoryServingGateway
from tests.fakes.workloads import InMemorySecretGateway, InMemoryWorkloadGateway

EKS_NAME = "eks-cluster-demo"
REGION = "us-west-2"
SEED = "vllm serve Qwen/Qwen3-0.6B --max-model-len 1280 --tensor-parallel-size 1"
ACTOR = Actor("alice", Role.OPERATOR)
OTHER = Actor("bob", Role.OPERATOR)


def node(name: str, instance_type: str, gpus: int) -> KubernetesNode:
    labels = {"node.kubernetes.io/instance-type": instance_type}
    return KubernetesNode(name, True, True, labels, {"nvidia.com/gpu": str(gpus)}, {"nvidia.com/gpu": str(gpus)})


class World:
    def __init__(self, record: ClusterRecord, clock: FakeClock) -> None:
        registry = InMemoryClusterRegistry()
        registry.create(record)
        self.eks = InMemoryEksGateway()
        self.cluster = self.eks.add_cluster(EKS_NAME)
        self.kubernetes = InMemoryKubernetesGateway()
        self.kubernetes.api(EKS_NAME).nodes = [node("n-1", "ml.g5.12xlarge", 4), node("n-2", "ml.g6.xlarge", 1)]
        self.serving = InMemoryServingGateway(self.kubernetes)
        workloads = InMemoryWorkloadGateway(self.kubernetes)
        clusters = ClusterService(registry, lambda _: self.eks, lambda _: None, self.kubernetes, clock)
        confirmations = Confirmations(InMemoryConfirmationStore(), clock)
        eks = lambda _: self.eks  # noqa: E731
        secrets = InMemorySecretGateway(self.kubernetes)
        self.hyperpod = InMemoryHyperPodGateway()
        self.governance = InMemoryGovernanceGateway()
        targets = TeamTargets(eks, lambda _: self.hyperpod, lambda _: self.governance, every_namespace_ready)
        self.queues = InMemoryKueueGateway()
        self.servers = ModelServerService(
            clusters,
            eks,
            self.kubernetes,
            self.serving,
            self.serving,
            workloads,
            secrets,
            confirmations,
            targets,
            self.queues,
        )
        self.pool = ModelPoolService(clusters, eks, self.kubernetes, self.serving, self.serving, workloads)

    def add_team(self, team: str, *priorities: str) -> None:
        """Task governance on, the team's quota and namespace, and the scheduler policy's priority classes."""
        self.eks.add_addon(EKS_NAME, "amazon-sagemaker-hyperpod-taskgovernance")
        arn = self.hyperpod.put_cluster("hp-cluster-demo").arn
        self.governance.put_team(arn, team)
        self.governance.put_priorities(arn, *priorities)
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"hyperpod-ns-{team}"}}
        self.kubernetes.apply(self.cluster, REGION, [namespace])

    @property
    def objects(self) -> dict[str, dict[str, Any]]:
        return self.kubernetes.api(EKS_NAME).objects

    def put_secret(self, name: str, labels: dict[str, str]) -> None:
        metadata = {"name": name, "namespace": "ml", "labels": labels}
        secret = {"apiVersion": "v1", "kind": "Secret", "metadata": metadata, "data": {"token": "eA=="}}
        self.kubernetes.apply(self.cluster, REGION, [secret])

    def add_pod(self, name: str, model: str, business: str | None = None, ready: bool = True) -> None:
        labels = {MODEL_LABEL: model, **({BUSINESS_LABEL: business} if business else {})}
        conditions = [{"type": "Ready", "status": "True" if ready else "False"}]
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml", "uid": f"uid-{name}", "labels": labels},
            "spec": {"nodeName": "n-1"},
            "status": {"phase": "Running", "conditions": conditions},
        }
        self.kubernetes.apply(self.cluster, REGION, [pod])


@pytest.fixture
def world(make_record: Callable[..., ClusterRecord], clock: FakeClock) -> World:
    record = make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim", storageBucket="bucket-demo")
    return World(record, clock)


def deploy(**fields: Any) -> DeployModelRequest:
    return DeployModelRequest.model_validate({"name": "qwen", "command": SEED, "gpus": 1, **fields})


def test_an_internal_deploy_creates_a_deployment_with_the_gpus_given_and_a_cluster_ip_service(world: World) -> None:
    detail = world.servers.deploy("demo", deploy(instanceType="ml.g5.12xlarge", gpus=2))

    deployment, service = world.objects["Deployment/ml/qwen"], world.objects["Service/ml/qwen"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "2"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/health", "port": 8000}
    assert container["command"][:3] == ["vllm", "serve", "Qwen/Qwen3-0.6B"]
    assert deployment["spec"]["template"]["spec"]["nodeSelector"] == {
        "node.kubernetes.io/instance-type": "ml.g5.12xlarge"
    }
    assert {"name": "shm", "mountPath": "/dev/shm"} in container["volumeMounts"]
    assert (service["spec"]["type"], service["spec"]["selector"]) == ("ClusterIP", {MODEL_LABEL: "qwen"})
    assert (detail.status, detail.gpus, detail.engine) == ("Loading", 2, "vllm")


def test_an_external_deploy_gets_an_internet_facing_load_balancer(world: World) -> None:
    world.servers.deploy("demo", deploy(serviceType="external"))

    service = world.objects["Service/ml/qwen"]
    assert service["spec"]["type"] == "LoadBalancer"
    assert (
        service["metadata"]["annotations"]["service.beta.kubernetes.io/aws-load-balancer-scheme"] == "internet-facing"
    )


def test_a_pool_deploy_labels_its_workers_unassigned_and_creates_no_service(world: World) -> None:
    world.servers.deploy("demo", deploy(serviceType="pool", replicas=2))

    labels = world.objects["Deployment/ml/qwen"]["spec"]["template"]["metadata"]["labels"]
    assert labels[BUSINESS_LABEL] == "unassigned"
    assert "Service/ml/qwen" not in world.objects


def test_a_token_goes_into_a_secret_that_the_pod_reads_and_no_view_returns(world: World) -> None:
    detail = world.servers.deploy("demo", deploy(huggingFaceToken="hf_secret"))

    secret = world.objects["Secret/ml/qwen-hf-token"]
    env = world.objects["Deployment/ml/qwen"]["spec"]["template"]["spec"]["containers"][0]["env"]
    assert secret["stringData"] == {"token": "hf_secret"}
    assert {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "qwen-hf-token", "key": "token"}}} in env
    assert "hf_secret" not in detail.model_dump_json()


def test_a_named_token_secret_of_the_control_plane_is_read_by_the_pod(world: World) -> None:
    world.put_secret("team-token", {"app.kubernetes.io/managed-by": "instantstart"})

    world.servers.deploy("demo", deploy(huggingFaceTokenSecret="team-token"))

    env = world.objects["Deployment/ml/qwen"]["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "team-token", "key": "token"}}} in env


@pytest.mark.parametrize(("labels", "error"), [(None, SecretNotFoundError), ({"team": "x"}, ForeignResourceError)])
def test_a_named_token_secret_missing_or_not_the_control_planes_is_refused_before_anything_is_created(
    world: World, labels: dict[str, str] | None, error: type[Exception]
) -> None:
    if labels is not None:
        world.put_secret("default-token", labels)

    with pytest.raises(error, match=r"app\.kubernetes\.io/managed-by=instantstart"):
        world.servers.deploy("demo", deploy(huggingFaceTokenSecret="default-token"))

    assert [key for key in world.objects if not key.startswith("Secret/")] == []


def test_refusals_say_what_to_change(world: World) -> None:
    with pytest.raises(InvalidRequestError, match="at most 1"):
        world.servers.deploy("demo", deploy(instanceType="ml.g6.xlarge", gpus=2))
    with pytest.raises(InvalidRequestError, match=r"ml\.g5\.12xlarge"):
        world.servers.deploy("demo", deploy(instanceType="ml.p5.48xlarge"))
    with pytest.raises(InvalidRequestError, match="How many GPUs"):
        world.servers.deploy("demo", deploy(command="vllm serve m --tensor-parallel-size 4", gpus=2))
    world.servers.deploy("demo", deploy())
    with pytest.raises(DeploymentNameInUseError):
        world.servers.deploy("demo", deploy())


def test_a_dry_run_plans_the_objects_and_creates_nothing(world: World) -> None:
    plan = world.servers.plan_deploy("demo", deploy(huggingFaceToken="t"))

    assert [(a.resource, a.name) for a in plan.actions] == [
        ("Secret", "ml/qwen-hf-token"),
        ("Deployment", "ml/qwen"),
        ("Service", "ml/qwen"),
    ]
    assert world.objects == {}


def job(phase: str, output: str, namespace: str = "ml") -> dict[str, Any]:
    container = {"name": "pytorch", "image": "train:1", "args": [f"--output_dir={output}"]}
    return {
        "apiVersion": "sagemaker.amazonaws.com/v1",
        "kind": "HyperPodPyTorchJob",
        "metadata": {"name": "tuned", "namespace": namespace},
        "spec": {"replicaSpecs": [{"name": "pods", "replicas": 1, "template": {"spec": {"containers": [container]}}}]},
        "status": {"conditions": [{"type": phase, "status": "True"}]},
    }


def test_a_succeeded_jobs_output_is_served_from_the_claim(world: World) -> None:
    world.kubernetes.apply(world.cluster, REGION, [job("Completed", "/s3/outputs/tuned")])

    detail = world.servers.deploy("demo", deploy(command="vllm serve", modelSource={"job": "tuned"}))

    assert detail.command[:3] == ["vllm", "serve", "/s3/outputs/tuned"]
    assert detail.modelSourceUri == "s3://bucket-demo/outputs/tuned"


def test_a_job_that_wrote_outside_the_claims_bucket_is_refused(world: World) -> None:
    world.kubernetes.apply(world.cluster, REGION, [job("Completed", "s3://elsewhere/out")])

    with pytest.raises(InvalidRequestError, match="does not hold"):
        world.servers.deploy("demo", deploy(modelSource={"job": "tuned"}))


def test_an_update_changes_only_what_differs_and_says_so(world: World) -> None:
    world.servers.deploy("demo", deploy())

    planned = world.servers.update(
        "demo", "qwen", UpdateDeploymentRequest(replicas=3, image="vllm/vllm-openai:latest"), True, None, ACTOR
    )
    done = world.servers.update(
        "demo", "qwen", UpdateDeploymentRequest(replicas=3, image="my/vllm:2"), False, None, ACTOR
    )

    assert planned.changes == {"replicas": "updated", "image": "unchanged"} and planned.deployment.replicas == 1
    assert done.changes == {"replicas": "updated", "image": "updated"}
    assert (done.deployment.replicas, done.deployment.image) == (3, "my/vllm:2")


def test_binding_a_worker_relabels_its_pod_and_creates_the_binding_service(world: World) -> None:
    world.servers.deploy("demo", deploy(serviceType="pool", replicas=2))
    world.add_pod("qwen-a", "qwen", "unassigned")

    bound = world.pool.act("demo", PoolActionRequest(action="bind", worker="qwen-a", service="chat"))

    pod = world.objects["Pod/ml/qwen-a"]
    assert (bound.worker.service, bound.worker.uid) == ("chat", "uid-qwen-a")
    assert pod["metadata"]["labels"][BUSINESS_LABEL] == "chat"
    assert pod["metadata"]["annotations"][DELETION_COST_ANNOTATION] == "10000"
    assert world.objects["Service/ml/chat"]["spec"]["selector"] == {MODEL_LABEL: "qwen", BUSINESS_LABEL: "chat"}

    unbound = world.pool.act("demo", PoolActionRequest(action="unbind", worker="qwen-a"))

    assert (unbound.worker.service, unbound.worker.uid) == (None, "uid-qwen-a")
    assert DELETION_COST_ANNOTATION not in world.objects["Pod/ml/qwen-a"]["metadata"]["annotations"]


def test_a_worker_never_binds_to_a_service_of_another_model_or_to_a_non_worker(world: World) -> None:
    world.servers.deploy("demo", deploy())
    world.servers.deploy("demo", deploy(name="pool", serviceType="pool"))
    world.add_pod("pool-a", "pool", "unassigned")
    world.add_pod("qwen-a", "qwen")

    with pytest.raises(ServiceBindingError):
        world.pool.act("demo", PoolActionRequest(action="bind", worker="pool-a", service="qwen"))
    with pytest.raises(InvalidRequestError, match="not a model pool worker"):
        world.pool.act("demo", PoolActionRequest(action="bind", worker="qwen-a", service="chat"))


def test_scaling_in_never_goes_below_the_bound_workers(world: World) -> None:
    world.servers.deploy("demo", deploy(serviceType="pool", replicas=3))
    world.add_pod("qwen-a", "qwen", "chat")
    world.add_pod("qwen-b", "qwen", "unassigned")
    world.add_pod("qwen-c", "qwen", "unassigned")

    with pytest.raises(InvalidRequestError, match="qwen-a"):
        world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=0), False, None, ACTOR)
    scaled_in = world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=1), False, None, ACTOR)
    assert scaled_in.deployment.replicas == 1


def replicas(world: World) -> int:
    return int(world.objects["Deployment/ml/qwen"]["spec"]["replicas"])


def test_scaling_to_zero_without_a_token_is_refused_with_the_plan_and_its_token_and_changes_nothing(
    world: World,
) -> None:
    world.servers.deploy("demo", deploy(replicas=2))

    with pytest.raises(ConfirmationRequiredError) as asked:
        world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=0), False, None, ACTOR)

    plan = asked.value.details or {}
    assert plan["confirmationToken"] and plan["expiresAt"]
    stopped, kept = plan["actions"]
    assert (stopped["action"], stopped["resource"], stopped["name"]) == ("update", "Deployment", "ml/qwen")
    assert "2 -> 0" in stopped["detail"]
    assert (kept["action"], kept["resource"], kept["name"]) == ("keep", "Service", "ml/qwen")
    assert "Ask the person to confirm" in asked.value.message
    assert replicas(world) == 2


def test_scaling_to_zero_with_the_token_of_its_plan_stops_the_server_once(world: World) -> None:
    world.servers.deploy("demo", deploy(replicas=2))
    request = UpdateDeploymentRequest(replicas=0)
    with pytest.raises(ConfirmationRequiredError) as asked:
        world.servers.update("demo", "qwen", request, False, None, ACTOR)
    token = (asked.value.details or {})["confirmationToken"]

    done = world.servers.update("demo", "qwen", request, False, token, ACTOR)

    assert (done.changes, done.deployment.replicas, replicas(world)) == ({"replicas": "updated"}, 0, 0)
    world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=1), False, None, ACTOR)
    with pytest.raises(ConfirmationRequiredError):
        world.servers.update("demo", "qwen", request, False, token, ACTOR)
    assert replicas(world) == 1


def test_a_scale_to_zero_token_confirms_only_its_caller_and_request(world: World) -> None:
    world.servers.deploy("demo", deploy(replicas=2))
    with pytest.raises(ConfirmationRequiredError) as asked:
        world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=0), False, None, ACTOR)
    token = (asked.value.details or {})["confirmationToken"]

    with pytest.raises(ConfirmationRequiredError):
        world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=0), False, token, OTHER)
    with pytest.raises(ConfirmationRequiredError):
        world.servers.update(
            "demo", "qwen", UpdateDeploymentRequest(replicas=0, image="my/vllm:2"), False, token, ACTOR
        )
    assert replicas(world) == 2


def test_a_token_planned_before_the_server_changed_does_not_confirm_its_scale_to_zero(world: World) -> None:
    world.servers.deploy("demo", deploy(replicas=2))
    with pytest.raises(ConfirmationRequiredError) as asked:
        world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=0), False, None, ACTOR)
    world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=4), False, None, ACTOR)

    with pytest.raises(ConfirmationRequiredError, match="state that has changed"):
        world.servers.update(
            "demo",
            "qwen",
            UpdateDeploymentRequest(replicas=0),
            False,
            (asked.value.details or {})["confirmationToken"],
            ACTOR,
        )
    assert replicas(world) == 4


def test_scaling_up_a_dry_run_to_zero_and_a_server_already_at_zero_need_no_token(world: World) -> None:
    world.servers.deploy("demo", deploy(replicas=1))

    planned = world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=0), True, None, ACTOR)
    assert (planned.dryRun, planned.changes, replicas(world)) == (True, {"replicas": "updated"}, 1)
    assert world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=2), False, None, ACTOR)
    world.objects["Deployment/ml/qwen"]["spec"]["replicas"] = 0
    unchanged = world.servers.update("demo", "qwen", UpdateDeploymentRequest(replicas=0), False, None, ACTOR)
    assert unchanged.changes == {"replicas": "unchanged"}


def test_a_chat_goes_through_the_service_proxy_with_the_served_model(world: World) -> None:
    world.servers.deploy("demo", deploy())
    world.add_pod("qwen-a", "qwen")

    answer = world.servers.chat("demo", "qwen", ChatCompletionRequest(prompt="hi", max_tokens=32, temperature=0.7))

    target, body = world.serving.calls[-1]
    assert target == "proxy:ml/qwen:8000/v1/chat/completions"
    assert body == {
        "model": "Qwen/Qwen3-0.6B",
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 32,
        "temperature": 0.7,
    }
    assert answer.choices[0].message.content == "hello"


def test_a_chat_reaches_only_a_ready_model_service_of_the_cluster(world: World) -> None:
    other = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "kube-dns", "namespace": "ml"}, "spec": {}}
    world.kubernetes.apply(world.cluster, REGION, [other])
    world.servers.deploy("demo", deploy())
    world.add_pod("qwen-a", "qwen", ready=False)

    with pytest.raises(ModelServiceNotFoundError):
        world.servers.chat("demo", "kube-dns", ChatCompletionRequest(prompt="hi"))
    with pytest.raises(ModelNotReadyError, match="wait until"):
        world.servers.chat("demo", "qwen", ChatCompletionRequest(prompt="hi"))
    assert world.serving.calls == []


def test_a_failing_model_server_is_a_gateway_error_with_its_answer(world: World) -> None:
    from controlplane.core.ports.serving import HttpAnswer

    world.servers.deploy("demo", deploy())
    world.add_pod("qwen-a", "qwen")
    world.serving.answer = HttpAnswer(500, "CUDA out of memory")

    with pytest.raises(ModelServerError, match="CUDA out of memory"):
        world.servers.chat("demo", "qwen", ChatCompletionRequest(prompt="hi"))


def test_an_answer_that_is_no_chat_completion_is_a_gateway_error(world: World) -> None:
    from controlplane.core.ports.serving import HttpAnswer

    world.servers.deploy("demo", deploy())
    world.add_pod("qwen-a", "qwen")
    world.serving.answer = HttpAnswer(200, '{"generated_text": "hello"}')

    chat = ChatCompletionRequest.model_validate({"messages": [{"role": "user", "content": "hi"}]})

    with pytest.raises(ModelServerError, match="v1/chat/completions"):
        world.servers.chat("demo", "qwen", chat)


def test_delete_needs_the_token_of_a_plan_and_removes_the_server_its_services_and_secret(world: World) -> None:
    world.servers.deploy("demo", deploy(huggingFaceToken="t"))

    plan = world.servers.plan_delete("demo", "qwen", ACTOR)
    world.servers.delete("demo", "qwen", str(plan.confirmationToken), ACTOR)

    assert {a.resource for a in plan.actions} == {"Deployment", "Service", "Secret"}
    assert world.objects == {}


def test_delete_keeps_a_token_secret_the_server_was_given_by_name(world: World) -> None:
    world.put_secret("team-token", {"app.kubernetes.io/managed-by": "instantstart"})
    world.servers.deploy("demo", deploy(huggingFaceTokenSecret="team-token"))

    plan = world.servers.plan_delete("demo", "qwen", ACTOR)
    world.servers.delete("demo", "qwen", str(plan.confirmationToken), ACTOR)

    assert {a.resource for a in plan.actions} == {"Deployment", "Service"}
    assert list(world.objects) == ["Secret/ml/team-token"]


def test_a_name_taken_by_another_service_is_refused_before_anything_is_created(world: World) -> None:
    taken = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "qwen", "namespace": "ml"}, "spec": {}}
    world.kubernetes.apply(world.cluster, REGION, [taken])

    with pytest.raises(DeploymentNameInUseError):
        world.servers.deploy("demo", deploy())

    assert "Deployment/ml/qwen" not in world.objects


QUEUE, PRIORITY = "kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/priority-class"


def test_a_team_server_runs_in_the_teams_namespace_labelled_for_its_queue_and_priority(world: World) -> None:
    world.add_team("ml-a", "high")

    detail = world.servers.deploy(
        "demo", DeployModelRequest(name="qwen", command=SEED, gpus=1, team="ml-a", priority="high")
    )

    server = world.objects["Deployment/hyperpod-ns-ml-a/qwen"]
    wanted = {QUEUE: "hyperpod-ns-ml-a-localqueue", PRIORITY: "high-priority"}
    assert wanted.items() <= server["metadata"]["labels"].items()
    assert wanted.items() <= server["spec"]["template"]["metadata"]["labels"].items()
    assert "Service/hyperpod-ns-ml-a/qwen" in world.objects
    assert detail.namespace == "hyperpod-ns-ml-a"


def test_a_team_serves_its_own_jobs_output_from_the_teams_namespace(world: World) -> None:
    world.add_team("ml-a")
    world.kubernetes.apply(world.cluster, REGION, [job("Completed", "/s3/outputs/tuned", "hyperpod-ns-ml-a")])
    request = DeployModelRequest(name="qwen", command="vllm serve", gpus=1, team="ml-a", modelSource={"job": "tuned"})

    detail = world.servers.deploy("demo", request)

    assert (detail.namespace, detail.modelSourceUri) == ("hyperpod-ns-ml-a", "s3://bucket-demo/outputs/tuned")


def test_a_job_is_found_by_its_name_alone_in_the_claims_or_a_teams_namespace_as_the_job_routes_find_it(
    world: World,
) -> None:
    world.add_team("ml-a")
    world.kubernetes.apply(world.cluster, REGION, [job("Completed", "/s3/outputs/tuned", "hyperpod-ns-ml-a")])
    world.kubernetes.apply(world.cluster, REGION, [job("Completed", "/s3/outputs/elsewhere", "kube-public")])
    request = DeployModelRequest(name="home", command="vllm serve", gpus=1, modelSource={"job": "tuned"})

    detail = world.servers.deploy("demo", request)

    assert (detail.namespace, detail.modelSourceUri) == ("ml", "s3://bucket-demo/outputs/tuned")


def test_a_team_server_is_listed_read_and_deleted_by_its_name_alone(world: World) -> None:
    world.add_team("ml-a")
    world.servers.deploy("demo", DeployModelRequest(name="home", command=SEED, gpus=1))
    world.servers.deploy("demo", DeployModelRequest(name="qwen", command=SEED, gpus=1, team="ml-a"))

    assert [d.name for d in world.servers.list_deployments("demo").deployments] == ["home", "qwen"]
    assert world.servers.get("demo", "qwen").namespace == "hyperpod-ns-ml-a"
    plan = world.servers.plan_delete("demo", "qwen", ACTOR)
    assert plan.confirmationToken
    world.servers.delete("demo", "qwen", plan.confirmationToken, ACTOR)
    assert [key for key in world.objects if "hyperpod-ns-ml-a/qwen" in key] == []


def test_a_server_name_is_unique_across_the_claims_and_the_teams_namespaces(world: World) -> None:
    world.add_team("ml-a")
    world.servers.deploy("demo", DeployModelRequest(name="qwen", command=SEED, gpus=1))

    with pytest.raises(DeploymentNameInUseError, match="namespace ml"):
        world.servers.deploy("demo", DeployModelRequest(name="qwen", command=SEED, gpus=1, team="ml-a"))


def test_a_priority_outside_the_policy_is_refused_and_nothing_is_created(world: World) -> None:
    world.add_team("ml-a", "low")

    with pytest.raises(PriorityClassNotFoundError, match="classes: low"):
        world.servers.deploy("demo", DeployModelRequest(name="qwen", command=SEED, gpus=1, team="ml-a", priority="hi"))
    assert [key for key in world.objects if key.startswith(("Deployment/", "Service/"))] == []


def test_pool_workers_take_no_team() -> None:
    with pytest.raises(ValidationError, match="Pool workers run in the cluster's namespace"):
        DeployModelRequest(name="qwen", command=SEED, gpus=1, serviceType="pool", team="ml-a")
