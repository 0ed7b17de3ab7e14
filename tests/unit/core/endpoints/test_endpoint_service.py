"""The managed endpoint service against in-memory fakes: what it creates, how it reads an endpoint back, train →
deploy, chat, delete, and each refusal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.confirmations import Confirmations
from controlplane.core.endpoints.errors import (
    EndpointNameInUseError,
    EndpointNotFoundError,
    EndpointNotReadyError,
    RoutingImmutableError,
)
from controlplane.core.endpoints.manifest import API_VERSION, ENDPOINT_LABEL
from controlplane.core.endpoints.service import EndpointService
from controlplane.core.features.catalog.inference_operator import INFERENCE_OPERATOR_ADDON
from controlplane.core.ports.hyperpod import HyperPodCluster
from controlplane.core.ports.kubernetes import KubernetesNode, KubernetesPod
from controlplane.core.registry import ClusterService
from controlplane.core.secret_references import SecretNotFoundError
from controlplane.core.training.schema import schema_problems
from controlplane.models.chat import ChatCompletionRequest
from controlplane.models.clusters import ClusterRecord
from controlplane.models.endpoints import CreateEndpointRequest, EndpointKind, EndpointState
from controlplane.models.errors import (
    ConfirmationRequiredError,
    DependencyFailedError,
    FeatureNotEnabledError,
    ForeignResourceError,
    InvalidRequestError,
)
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.hyperpod import InMemoryHyperPodGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.model_endpoints import InMemoryModelEndpointGateway
from tests.fakes.persistence import FakeClock, InMemoryClusterRegistry, InMemoryConfirmationStore
from tests.fakes.workloads import FakePod, InMemorySecretGateway, InMemoryWorkloadGateway

EKS_NAME = "eks-cluster-demo"
REGION = "us-west-2"
BUCKET = "sagemaker-is-demo-data"
ADMIN = Actor("alice", Role.OPERATOR)


def node(name: str, instance_type: str, gpus: int) -> KubernetesNode:
    capacity = {"nvidia.com/gpu": str(gpus)} if gpus else {}
    return KubernetesNode(name, True, True, {"node.kubernetes.io/instance-type": instance_type}, capacity, capacity)


class World:
    def __init__(self, record: ClusterRecord, clock: FakeClock) -> None:
        self.registry = InMemoryClusterRegistry()
        self.registry.create(record)
        self.eks = InMemoryEksGateway()
        self.cluster = self.eks.add_cluster(EKS_NAME)
        self.eks.add_addon(EKS_NAME, INFERENCE_OPERATOR_ADDON)
        self.hyperpod = InMemoryHyperPodGateway()
        self.kubernetes = InMemoryKubernetesGateway()
        self.kubernetes.api(EKS_NAME).nodes = [node("hyperpod-i-1", "ml.g5.12xlarge", 4)]
        self.workloads = InMemoryWorkloadGateway(self.kubernetes)
        self.runtime = InMemoryModelEndpointGateway()
        confirmations = Confirmations(InMemoryConfirmationStore(), clock)
        clusters = ClusterService(self.registry, lambda _: self.eks, lambda _: None, self.kubernetes, clock)
        self.service = EndpointService(
            clusters,
            lambda _: self.eks,
            lambda _: self.hyperpod,
            self.kubernetes,
            self.workloads,
            self.workloads,
            InMemorySecretGateway(self.kubernetes),
            lambda _: self.runtime,
            confirmations,
        )

    def endpoint(self, name: str, kind: str = "InferenceEndpointConfig") -> dict[str, Any] | None:
        return self.kubernetes.get(self.cluster, REGION, API_VERSION, kind, name, "ml")

    def set_state(self, name: str, state: str) -> None:
        objects = self.kubernetes.api(EKS_NAME).objects
        for obj in objects.values():
            if obj["metadata"]["name"] == name:
                obj["status"] = {"state": state}

    def tiered_storage(self, mode: str) -> None:
        self.hyperpod.clusters["hp-cluster-demo"] = HyperPodCluster(
            "hp-cluster-demo", "arn", "InService", None, (), settings={"TieredStorageConfig": {"Mode": mode}}
        )

    def job(self, name: str, args: list[str], condition: str = "Completed", namespace: str = "ml") -> None:
        container = {"name": "pytorch", "image": "train:1", "args": args}
        job = {
            "apiVersion": "sagemaker.amazonaws.com/v1",
            "kind": "HyperPodPyTorchJob",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "replicaSpecs": [{"name": "pods", "replicas": 1, "template": {"spec": {"containers": [container]}}}]
            },
            "status": {"conditions": [{"type": condition, "status": "True"}]},
        }
        self.kubernetes.apply(self.cluster, REGION, [job])


@pytest.fixture
def world(make_record: Callable[..., ClusterRecord], clock: FakeClock) -> World:
    record = make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim", storageBucket=BUCKET)
    return World(record, clock)


def request(**fields: Any) -> CreateEndpointRequest:
    values: dict[str, Any] = {
        "name": "qwen",
        "instanceType": "ml.g5.12xlarge",
        "model": {"source": {"s3": {"path": "models/Qwen/Qwen3-0.6B"}}, "image": "vllm:1", "gpus": 1},
    }
    values.update(fields)
    return CreateEndpointRequest.model_validate(values)


def test_create_renders_an_inference_endpoint_config_on_the_cluster_bucket(world: World) -> None:
    detail = world.service.create("demo", request())

    obj = world.endpoint("qwen")
    assert obj is not None and schema_problems(obj) == []
    assert obj["spec"]["modelSourceConfig"] == {
        "modelSourceType": "s3",
        "s3Storage": {"bucketName": BUCKET, "region": REGION},
        "modelLocation": "models/Qwen/Qwen3-0.6B",
    }
    assert obj["spec"]["endpointName"] == "is-demo-qwen"
    assert obj["spec"]["worker"]["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert detail.state is EndpointState.DEPLOYMENT_PENDING
    assert detail.sageMakerEndpointName == "is-demo-qwen"
    assert detail.model == f"s3://{BUCKET}/models/Qwen/Qwen3-0.6B"


def test_a_jumpstart_model_becomes_a_jumpstart_model_object(world: World) -> None:
    world.service.create("demo", request(model=None, jumpStart={"modelId": "deepseek-llm-r1-distill-qwen-1-5b"}))

    obj = world.endpoint("qwen", "JumpStartModel")
    assert obj is not None and schema_problems(obj) == []
    assert obj["spec"]["model"]["modelId"] == "deepseek-llm-r1-distill-qwen-1-5b"
    assert obj["spec"]["server"] == {"instanceType": "ml.g5.12xlarge"}
    assert obj["spec"]["sageMakerEndpoint"] == {"name": "is-demo-qwen"}


def test_a_dry_run_returns_the_checked_manifest_and_creates_nothing(world: World) -> None:
    rendered = world.service.render("demo", request(routing={"strategy": "kvaware"}))

    assert rendered.kind is EndpointKind.INFERENCE_ENDPOINT_CONFIG
    assert rendered.manifest["spec"]["intelligentRoutingSpec"] == {"enabled": True, "routingStrategy": "kvaware"}
    assert world.endpoint("qwen") is None


def test_create_is_refused_without_the_inference_operator_and_names_the_feature(world: World) -> None:
    world.eks.addons.clear()

    with pytest.raises(FeatureNotEnabledError) as refused:
        world.service.create("demo", request())

    assert "'inferenceOperator'" in refused.value.message and "PATCH /clusters/demo/features" in refused.value.message
    assert refused.value.status == 409


def test_a_tiered_storage_l2_cache_needs_the_tiered_storage_feature(world: World) -> None:
    cache = {"l2": {"backend": "tieredstorage"}}
    with pytest.raises(InvalidRequestError, match="'tieredStorage' feature"):
        world.service.create("demo", request(kvCache=cache))

    world.tiered_storage("Enable")
    world.service.create("demo", request(kvCache=cache))
    obj = world.endpoint("qwen")
    assert obj is not None
    assert obj["spec"]["kvCacheSpec"] == {
        "enableL1Cache": True,
        "enableL2Cache": True,
        "l2CacheSpec": {"l2CacheBackend": "tieredstorage"},
    }


def test_a_redis_l2_cache_needs_its_url(world: World) -> None:
    with pytest.raises(InvalidRequestError, match="localUrl"):
        world.service.create("demo", request(kvCache={"l2": {"backend": "redis"}}))

    world.service.create("demo", request(kvCache={"l2": {"backend": "redis", "localUrl": "redis://cache:6379"}}))
    obj = world.endpoint("qwen")
    assert obj is not None and obj["spec"]["kvCacheSpec"]["l2CacheSpec"]["l2CacheLocalUrl"] == "redis://cache:6379"


def test_a_redis_url_with_the_tiered_storage_backend_is_refused(world: World) -> None:
    world.tiered_storage("Enable")
    with pytest.raises(InvalidRequestError, match="drop it"):
        world.service.create("demo", request(kvCache={"l2": {"backend": "tieredstorage", "localUrl": "redis://c:1"}}))


def test_changing_routing_after_creation_is_refused_as_immutable(world: World) -> None:
    world.service.create("demo", request(routing={"strategy": "prefixaware"}))

    with pytest.raises(RoutingImmutableError) as refused:
        world.service.create("demo", request(routing={"strategy": "roundrobin"}))

    assert "immutable" in refused.value.message and "delete the endpoint" in refused.value.message
    assert refused.value.status == 409


def test_a_name_in_use_is_refused(world: World) -> None:
    world.service.create("demo", request())
    with pytest.raises(EndpointNameInUseError):
        world.service.create("demo", request())


def test_more_gpus_than_the_instance_type_has_is_refused(world: World) -> None:
    with pytest.raises(InvalidRequestError, match="at most 4"):
        world.service.create("demo", request(model={**request().model_dump()["model"], "gpus": 8}))


def test_an_instance_type_the_cluster_does_not_have_is_refused_with_the_ones_it_has(world: World) -> None:
    with pytest.raises(InvalidRequestError, match=r"ml\.g5\.12xlarge") as refused:
        world.service.create("demo", request(instanceType="ml.p5.48xlarge"))
    assert refused.value.details == {"instanceType": ["ml.g5.12xlarge"]}


def test_a_finished_job_deploys_from_its_s3_output(world: World) -> None:
    world.job("sft", ["--model=/s3/models/base", "--output_dir=/s3/outputs/sft"])

    world.service.create("demo", request(model={**request().model_dump()["model"], "source": {"job": "sft"}}))

    obj = world.endpoint("qwen")
    assert obj is not None
    assert obj["spec"]["modelSourceConfig"]["s3Storage"]["bucketName"] == BUCKET
    assert obj["spec"]["modelSourceConfig"]["modelLocation"] == "outputs/sft"


def test_a_teams_finished_job_deploys_from_its_output_found_in_the_teams_namespace(world: World) -> None:
    world.job("sft", ["--output_dir=s3://team-bucket/outputs/sft"], namespace="hyperpod-ns-ml-a")
    world.job("other", ["--output_dir=/s3/outputs/other"], namespace="kube-public")

    world.service.create("demo", request(model={**request().model_dump()["model"], "source": {"job": "sft"}}))

    obj = world.endpoint("qwen")
    assert obj is not None
    assert obj["spec"]["modelSourceConfig"]["s3Storage"]["bucketName"] == "team-bucket"
    assert obj["spec"]["modelSourceConfig"]["modelLocation"] == "outputs/sft"
    with pytest.raises(InvalidRequestError, match="no training job named 'other'"):
        world.service.create(
            "demo", request(name="other", model={**request().model_dump()["model"], "source": {"job": "other"}})
        )


def put_secret(world: World, labels: dict[str, str]) -> None:
    metadata = {"name": "hf-token", "namespace": "ml", "labels": labels}
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": metadata, "data": {"token": "eA=="}}
    world.kubernetes.apply(world.cluster, REGION, [secret])


@pytest.mark.parametrize(("labels", "error"), [(None, SecretNotFoundError), ({"team": "x"}, ForeignResourceError)])
def test_a_token_secret_missing_or_not_the_control_planes_is_refused_before_the_endpoint_is_created(
    world: World, labels: dict[str, str] | None, error: type[Exception]
) -> None:
    if labels is not None:
        put_secret(world, labels)
    source = {"huggingFace": {"modelId": "Qwen/Qwen3-0.6B", "tokenSecret": "hf-token"}}
    with pytest.raises(error, match=r"model\.source\.huggingFace\.tokenSecret"):
        world.service.create("demo", request(model={**request().model_dump()["model"], "source": source}))
    assert world.endpoint("qwen") is None


def test_a_hugging_face_model_references_its_token_secret(world: World) -> None:
    put_secret(world, {"app.kubernetes.io/managed-by": "instantstart"})
    source = {"huggingFace": {"modelId": "Qwen/Qwen3-0.6B", "tokenSecret": "hf-token"}}
    world.service.create("demo", request(model={**request().model_dump()["model"], "source": source}))

    obj = world.endpoint("qwen")
    assert obj is not None and schema_problems(obj) == []
    assert obj["spec"]["modelSourceConfig"]["huggingFaceModel"] == {
        "modelId": "Qwen/Qwen3-0.6B",
        "tokenSecretRef": {"name": "hf-token", "key": "token"},
    }


def test_list_pages_across_both_kinds(world: World) -> None:
    world.service.create("demo", request(name="a"))
    world.service.create("demo", request(name="b"))
    world.service.create("demo", request(name="c", model=None, jumpStart={"modelId": "m"}))

    first = world.service.list_endpoints("demo", limit=2)
    assert [e.name for e in first.endpoints] == ["a", "b"]
    assert first.continue_ is not None
    rest = world.service.list_endpoints("demo", limit=2, token=first.continue_)
    assert [(e.name, e.kind) for e in rest.endpoints] == [("c", EndpointKind.JUMPSTART_MODEL)]
    assert rest.continue_ is None


def test_a_foreign_continue_token_is_refused(world: World) -> None:
    with pytest.raises(InvalidRequestError, match="continue token"):
        world.service.list_endpoints("demo", token="bm90LW91cnM")


def test_detail_counts_running_workers(world: World) -> None:
    world.service.create("demo", request(replicas=2))
    world.set_state("qwen", "DeploymentComplete")
    for index, phase in enumerate(("Running", "Pending")):
        pod = KubernetesPod(f"qwen-{index}", "hyperpod-i-1", phase, 0)
        world.workloads.of(EKS_NAME).pods.append(FakePod("ml", {ENDPOINT_LABEL: "qwen"}, pod))

    detail = world.service.get("demo", "qwen")

    assert detail.state is EndpointState.DEPLOYMENT_COMPLETE
    assert detail.replicas == 2 and detail.readyReplicas == 1
    assert [pod.name for pod in detail.pods] == ["qwen-0", "qwen-1"]


def test_chat_goes_through_the_sagemaker_endpoint_once_deployed(world: World) -> None:
    world.service.create("demo", request())
    chat = ChatCompletionRequest.model_validate({"messages": [{"role": "user", "content": "hello"}], "max_tokens": 8})

    with pytest.raises(EndpointNotReadyError, match="DeploymentPending"):
        world.service.chat("demo", "qwen", chat)

    world.set_state("qwen", "DeploymentComplete")
    world.runtime.in_service.add("is-demo-qwen")
    answer = world.service.chat("demo", "qwen", chat)

    assert answer.choices[0].message.content == "echo: hello"
    assert world.runtime.calls[-1] == (
        "is-demo-qwen",
        {"messages": [{"role": "user", "content": "hello"}], "max_tokens": 8},
    )


def test_a_prompt_reaches_the_endpoint_as_one_user_message(world: World) -> None:
    world.service.create("demo", request())
    world.set_state("qwen", "DeploymentComplete")
    world.runtime.in_service.add("is-demo-qwen")

    answer = world.service.chat("demo", "qwen", ChatCompletionRequest(prompt="hello", temperature=0.2))

    assert answer.choices[0].message.content == "echo: hello"
    assert world.runtime.calls[-1] == (
        "is-demo-qwen",
        {"messages": [{"role": "user", "content": "hello"}], "temperature": 0.2},
    )


def test_delete_needs_the_token_of_a_plan(world: World) -> None:
    world.service.create("demo", request())

    plan = world.service.plan_delete("demo", "qwen", ADMIN)
    assert plan.confirmationToken and "is-demo-qwen" in str(plan.actions[0].detail)
    with pytest.raises(ConfirmationRequiredError):
        world.service.delete("demo", "qwen", "not-a-token", ADMIN)
    assert world.endpoint("qwen") is not None

    done = world.service.delete("demo", "qwen", str(plan.confirmationToken), ADMIN)
    assert done.dryRun is False
    assert world.endpoint("qwen") is None


def test_an_unknown_endpoint_is_not_found(world: World) -> None:
    with pytest.raises(EndpointNotFoundError):
        world.service.get("demo", "nope")


def test_an_answer_that_is_no_chat_completion_is_a_dependency_failure(world: World) -> None:
    world.service.create("demo", request())
    world.set_state("qwen", "DeploymentComplete")
    world.runtime.in_service.add("is-demo-qwen")
    world.runtime.answer = {"generated_text": "hello"}
    chat = ChatCompletionRequest.model_validate({"messages": [{"role": "user", "content": "hello"}]})

    with pytest.raises(DependencyFailedError, match="v1/chat/completions"):
        world.service.chat("demo", "qwen", chat)
