"""The recipes' last-values store on moto, built from its table spec, each request serialized as the real service
does."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from controlplane.adapters.aws import session
from controlplane.adapters.aws.dynamo.recipe_values import DynamoRecipeValuesStore
from controlplane.adapters.aws.tables import TABLES
from sandbox.aws.stubber import SerializedStubber

TABLE = "recipe-values"


@pytest.fixture
def store(monkeypatch) -> Iterator[DynamoRecipeValuesStore]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    (spec,) = [spec for spec in TABLES if spec.setting == "recipe_values_table"]
    assert spec.sort_key is not None
    with mock_aws():
        SerializedStubber.install()
        try:
            session._client.cache_clear()
            boto3.client("dynamodb").create_table(
                TableName=TABLE,
                BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[
                    {"AttributeName": n, "AttributeType": "S"} for n in (spec.partition_key, spec.sort_key)
                ],
                KeySchema=[
                    {"AttributeName": spec.partition_key, "KeyType": "HASH"},
                    {"AttributeName": spec.sort_key, "KeyType": "RANGE"},
                ],
            )
            yield DynamoRecipeValuesStore(TABLE)
            session._client.cache_clear()
        finally:
            SerializedStubber.uninstall()


def test_values_are_kept_per_caller_and_recipe_with_their_json_types(store: DynamoRecipeValuesStore) -> None:
    values = {"model": "Qwen/Qwen2.5-0.5B", "nodes": 2, "learningRate": 0.0002, "bf16": True}
    store.put("alice", "llama-factory", values)

    assert store.get("alice", "llama-factory") == values
    assert store.get("alice", "ms-swift") is None
    assert store.get("bob", "llama-factory") is None


def test_submitting_again_replaces_the_last_values(store: DynamoRecipeValuesStore) -> None:
    store.put("alice", "ms-swift", {"epochs": 1})
    store.put("alice", "ms-swift", {"epochs": 3})

    assert store.get("alice", "ms-swift") == {"epochs": 3}
