"""Every shape of endpoint manifest validates against its CRD schema; requests that name no single model are refused."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from controlplane.core.endpoints.manifest import ResolvedSource, render, state
from controlplane.core.training.schema import schema_problems
from controlplane.models.endpoints import CreateEndpointRequest, EndpointState

S3 = ResolvedSource(
    "s3", {"s3Storage": {"bucketName": "data", "region": "us-west-2"}}, "models/m", "s3://data/models/m"
)
FSX = ResolvedSource("fsx", {"fsxStorage": {"fileSystemId": "fs-0123456789abcdef0"}}, "models/m", "fsx://fs/models/m")
HF = ResolvedSource("huggingface", {"huggingFaceModel": {"modelId": "Qwen/Qwen3-0.6B"}}, None, "Qwen/Qwen3-0.6B")
MODEL = {"source": {"s3": {"path": "models/m"}}, "image": "vllm:1", "gpus": 1, "cpu": "4", "memoryGi": 32}
AROUND: list[dict[str, Any]] = [
    {},
    {"kvCache": {"enableL1Cache": True}},
    {"kvCache": {"l2": {"backend": "tieredstorage"}}},
    {"kvCache": {"l2": {"backend": "redis", "localUrl": "redis://cache:6379"}}},
    *({"routing": {"strategy": strategy}} for strategy in ("prefixaware", "kvaware", "session", "roundrobin")),
    {"autoscaling": {"minReplicas": 1, "maxReplicas": 4, "cooldownSeconds": 60}},
]


@pytest.mark.parametrize("around", AROUND)
@pytest.mark.parametrize("source", [S3, FSX, HF])
def test_every_inference_endpoint_config_validates(source: ResolvedSource, around: dict[str, Any]) -> None:
    request = CreateEndpointRequest.model_validate(
        {
            "name": "qwen",
            "instanceType": "ml.g5.12xlarge",
            "model": {**MODEL, "args": ["--max-model-len", "1280"]},
            **around,
        }
    )
    assert schema_problems(render("demo", "ml", request, source)) == []


@pytest.mark.parametrize("around", AROUND)
def test_every_jumpstart_model_validates(around: dict[str, Any]) -> None:
    request = CreateEndpointRequest.model_validate(
        {"name": "ds", "instanceType": "ml.g5.12xlarge", "jumpStart": {"modelId": "m", "acceptEula": True}, **around}
    )
    assert schema_problems(render("demo", "ml", request, None)) == []


def test_the_schema_refuses_an_unknown_routing_strategy() -> None:
    request = CreateEndpointRequest.model_validate({"name": "qwen", "instanceType": "ml.g5.12xlarge", "model": MODEL})
    obj = render("demo", "ml", request, S3)
    obj["spec"]["intelligentRoutingSpec"] = {"enabled": True, "routingStrategy": "random"}
    assert schema_problems(obj) == [
        ".spec.intelligentRoutingSpec.routingStrategy: 'random' is not one of "
        "['prefixaware', 'kvaware', 'session', 'roundrobin']"
    ]


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"model": MODEL, "jumpStart": {"modelId": "m"}},
        {"model": {**MODEL, "source": {}}},
        {"model": {**MODEL, "source": {"s3": {"path": "a"}, "job": "sft"}}},
        {"model": MODEL, "autoscaling": {"minReplicas": 5, "maxReplicas": 2}},
        {"model": MODEL, "routing": {"strategy": "random"}},
        {"model": MODEL, "kvCache": {"l2": {"backend": "memcached"}}},
    ],
)
def test_a_request_without_exactly_one_valid_model_is_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        CreateEndpointRequest.model_validate({"name": "qwen", "instanceType": "ml.g5.12xlarge", **fields})


def test_an_unknown_state_reads_as_pending() -> None:
    assert state({"status": {"state": "Weird"}}) is EndpointState.DEPLOYMENT_PENDING
    assert state({"status": {"state": "DeletionInProgress"}}) is EndpointState.DELETION_IN_PROGRESS
