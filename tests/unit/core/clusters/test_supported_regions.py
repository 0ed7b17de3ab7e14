"""A Region AWS offers but where an image every HyperPod cluster runs has no registry is refused with a 4xx that
names the images and the Regions that have them, before anything is registered or started: stage 1, the one-request
pipeline, import and stage 3 (and their plans). GET /regions lists only the Regions a cluster can be built in.

The fixtures' table (`conftest.IMAGES`) serves the health agent in us-west-2 and eu-west-1; the account knows
us-east-1 too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.catalog import CatalogService
from controlplane.models.clusters import CreateEksClusterRequest, ImportClusterRequest
from controlplane.models.errors import UnsupportedRegionError
from controlplane.models.hyperpod import CreateHyperPodRequest
from controlplane.models.pipeline import CreateClusterRequest
from tests.unit.core.clusters.conftest import PINS

ADMIN = Actor("alice", Role.ADMIN)
EAST = "us-east-1"
EAST_EKS = CreateEksClusterRequest(clusterTag="demo", region=EAST)
EAST_GROUP = CreateHyperPodRequest(availabilityZone="us-east-1c", instanceType="ml.g6.4xlarge", instanceCount=1)
EAST_PIPELINE = CreateClusterRequest(clusterTag="demo", region=EAST, hyperpod=EAST_GROUP)
EAST_IMPORT = ImportClusterRequest(clusterTag="team", region=EAST, eksClusterName="ml-platform")
REFUSAL = {"region": EAST, "images": ["health-monitoring-agent"], "supportedRegions": ["eu-west-1", "us-west-2"]}

REQUESTS: dict[str, Callable[[Any], object]] = {
    "stage 1": lambda lifecycle: lifecycle.create_eks(EAST_EKS, ADMIN),
    "stage 1 plan": lambda lifecycle: lifecycle.plan_create_eks(EAST_EKS),
    "pipeline": lambda lifecycle: lifecycle.create_cluster(EAST_PIPELINE, ADMIN),
    "pipeline plan": lambda lifecycle: lifecycle.plan_pipeline(EAST_PIPELINE),
    "import": lambda lifecycle: lifecycle.import_cluster(EAST_IMPORT, ADMIN),
    "import plan": lambda lifecycle: lifecycle.plan_import(EAST_IMPORT),
}


@pytest.mark.parametrize("request_", REQUESTS.values(), ids=REQUESTS.keys())
def test_a_cluster_in_a_region_without_a_registry_for_a_dependency_image_is_refused_before_it_is_registered(
    lifecycle, registry, launcher, request_
) -> None:
    with pytest.raises(UnsupportedRegionError) as refused:
        request_(lifecycle)

    assert refused.value.status == 400 and refused.value.code == "UnsupportedRegion"
    assert refused.value.details == REFUSAL
    assert "choose one of the Regions that have them: eu-west-1, us-west-2" in refused.value.message
    assert (registry.items, launcher.started) == ({}, [])


def test_stage_3_of_a_cluster_in_a_region_without_a_registry_is_refused_before_it_starts(
    stage_requests, registry, launcher, make_record
) -> None:
    registry.create(make_record("eks", region=EAST))

    for request in (
        lambda: stage_requests.plan_dependencies("demo"),
        lambda: stage_requests.configure_dependencies("demo", ADMIN),
    ):
        with pytest.raises(UnsupportedRegionError) as refused:
            request()
        assert refused.value.details == REFUSAL
    assert launcher.started == []


def test_the_plan_of_stage_3_names_the_image_of_the_cluster_s_region(stage_requests, registry, make_record) -> None:
    registry.create(make_record("eks", region="eu-west-1"))

    manifests = {
        action.name: action.detail
        for action in stage_requests.plan_dependencies("demo").actions
        if action.resource == "Kubernetes manifest"
    }

    assert manifests == {
        "nvidia-device-plugin": "registry.example/nvidia:1",
        "health-monitoring-agent": "222.ecr.eu-west-1/agent:1",
    }


def test_the_regions_listed_are_those_with_a_registry_for_every_dependency_image(account) -> None:
    assert CatalogService(account, PINS).regions().regions == ["eu-west-1", "us-west-2"]
