"""MLflow tracking for recipe jobs against in-memory fakes: the Region's tracking servers listed by page, a chosen
server's ARN and the experiment injected into the job's environment, an unknown server refused naming those that
exist."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from controlplane.core.training.mlflow import MlflowTrackingServerNotFoundError
from controlplane.models.clusters import ClusterRecord
from controlplane.models.mlflow import MlflowTracking
from tests.fakes.persistence import FakeClock
from tests.unit.core.training.test_recipes import ALICE, World, job_request


@pytest.fixture
def world(make_record: Callable[..., ClusterRecord], clock: FakeClock) -> World:
    return World(make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim"), clock)


def environment(job: dict[str, Any]) -> dict[str, str]:
    container = job["spec"]["replicaSpecs"][0]["template"]["spec"]["containers"][0]
    return {variable["name"]: variable["value"] for variable in container["env"]}


def test_the_tracking_servers_of_the_clusters_region_are_listed_by_page(world: World) -> None:
    for name in ("alpha", "beta", "gamma"):
        world.mlflow.add(name)

    first = world.tracking.list_servers("demo", limit=2)
    second = world.tracking.list_servers("demo", limit=2, token=first.continue_)

    assert [server.name for server in first.trackingServers] == ["alpha", "beta"]
    assert [server.name for server in second.trackingServers] == ["gamma"]
    assert second.continue_ is None and first.region == "us-west-2"


def test_a_chosen_tracking_server_puts_its_arn_and_the_experiment_into_the_job(world: World) -> None:
    server = world.mlflow.add("team-tracking")
    request = job_request().model_copy(
        update={"mlflow": MlflowTracking(trackingServer="team-tracking", experiment="llama/sft-1")}
    )

    world.service.submit("demo", request, ALICE, dry_run=False)

    job = world.job("recipe-job")
    assert job is not None
    assert environment(job) == {
        "MLFLOW_EXPERIMENT_NAME": "llama/sft-1",
        "MLFLOW_TRACKING_URI": server.arn,
        "NCCL_DEBUG": "WARN",
    }


def test_a_dry_run_shows_the_tracking_environment(world: World) -> None:
    server = world.mlflow.add("team-tracking")
    tracking = MlflowTracking(trackingServer="team-tracking", experiment="e")
    request = job_request().model_copy(update={"mlflow": tracking})

    rendered = world.service.submit("demo", request, ALICE, dry_run=True)

    assert rendered.job.environment["MLFLOW_TRACKING_URI"] == server.arn
    assert rendered.job.environment["MLFLOW_EXPERIMENT_NAME"] == "e"


def test_without_mlflow_the_job_has_no_tracking_environment(world: World) -> None:
    world.mlflow.add("team-tracking")

    rendered = world.service.submit("demo", job_request(), ALICE, dry_run=True)

    assert not any(name.startswith("MLFLOW_") for name in rendered.job.environment)


def test_an_unknown_tracking_server_is_refused_naming_those_that_exist(world: World) -> None:
    world.mlflow.add("team-tracking")
    request = job_request().model_copy(update={"mlflow": MlflowTracking(trackingServer="gone", experiment="e")})

    with pytest.raises(MlflowTrackingServerNotFoundError, match=r"'gone'.*team-tracking") as refused:
        world.service.submit("demo", request, ALICE, dry_run=False)

    assert refused.value.details == {"trackingServers": ["team-tracking"]}
    assert world.job("recipe-job") is None
    assert world.last_values.items == {}


def test_an_experiment_name_outside_sagemakers_rule_is_refused_by_the_contract() -> None:
    with pytest.raises(ValidationError, match="experiment"):
        MlflowTracking(trackingServer="team-tracking", experiment="has spaces")
