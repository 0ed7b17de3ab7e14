"""Dev spaces against fakes of the ports: the Workspace a space is, the refusals a person meets, start and stop, and
deletion only behind a confirmed plan."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.confirmations import Confirmations
from controlplane.core.features.catalog.dev_spaces import SPACES_ADDON
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.core.registry import ClusterService
from controlplane.core.spaces.manifest import API_VERSION
from controlplane.core.spaces.service import SpaceNameInUseError, SpaceService
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import ConfirmationRequiredError, FeatureNotEnabledError, InvalidRequestError
from controlplane.models.spaces import CreateSpaceRequest, UpdateSpaceRequest
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.persistence import FakeClock, InMemoryClusterRegistry, InMemoryConfirmationStore
from tests.fakes.workloads import InMemoryWorkloadGateway

EKS_NAME = "eks-cluster-demo"
OPERATOR = Actor("olivia", Role.OPERATOR)


class World:
    def __init__(self, record: ClusterRecord, clock: FakeClock) -> None:
        registry = InMemoryClusterRegistry()
        registry.create(record)
        self.eks = InMemoryEksGateway()
        self.eks.add_cluster(EKS_NAME)
        self.eks.add_addon(EKS_NAME, SPACES_ADDON)
        self.kubernetes = InMemoryKubernetesGateway()
        capacity = {"nvidia.com/gpu": "4"}
        self.kubernetes.api(EKS_NAME).nodes = [KubernetesNode("hyperpod-i-1", True, True, {}, capacity, capacity)]
        self.workloads = InMemoryWorkloadGateway(self.kubernetes)
        clusters = ClusterService(registry, lambda _: self.eks, lambda _: None, self.kubernetes, clock)
        confirmations = Confirmations(InMemoryConfirmationStore(), clock)
        self.service = SpaceService(
            clusters, lambda _: self.eks, self.kubernetes, self.workloads, self.workloads, confirmations
        )

    def workspace(self, name: str) -> dict[str, Any] | None:
        cluster = self.eks.find_cluster(EKS_NAME)
        assert cluster is not None
        return self.kubernetes.get(cluster, "us-west-2", API_VERSION, "Workspace", name, "ml")

    def report(self, name: str, status: dict[str, Any]) -> None:
        """The spaces controller writes the Workspace's status."""
        cluster = self.eks.find_cluster(EKS_NAME)
        assert cluster is not None
        metadata = {"name": name, "namespace": "ml"}
        self.workloads.patch_object(
            cluster,
            "us-west-2",
            {"apiVersion": API_VERSION, "kind": "Workspace", "metadata": metadata, "status": status},
        )


@pytest.fixture
def world(make_record: Callable[..., ClusterRecord], clock: FakeClock) -> World:
    return World(make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim"), clock)


def test_a_space_is_a_running_workspace_with_its_gpus_and_the_s3_claim_at_workspace_s3(world):
    space = world.service.create("demo", CreateSpaceRequest(name="lab", gpus=2))
    workspace = world.workspace("lab")
    assert workspace is not None
    spec = workspace["spec"]
    assert (spec["desiredStatus"], spec["appType"], spec["image"]) == (
        "Running",
        "jupyterlab",
        "public.ecr.aws/sagemaker/sagemaker-distribution:latest-gpu",
    )
    assert spec["resources"]["limits"] == {"nvidia.com/gpu": "2"}
    assert spec["volumes"] == [
        {"name": "s3", "persistentVolumeClaimName": "s3-claim", "mountPath": "/home/sagemaker-user/workspace/s3"}
    ]
    assert (space.status, space.open) == ("Starting", None)


def test_a_running_space_says_how_to_open_it(world):
    world.service.create("demo", CreateSpaceRequest(name="lab"))
    world.report(
        "lab", {"serviceName": "workspace-lab-service", "conditions": [{"type": "Available", "status": "True"}]}
    )
    (space,) = world.service.list_spaces("demo").spaces
    assert space.status == "Running"
    assert space.open is not None and "kubectl port-forward -n ml service/workspace-lab-service 8888:8888" in space.open


def test_an_image_not_allowed_is_refused_and_nothing_is_created(world):
    with pytest.raises(InvalidRequestError, match="not allowed for spaces"):
        world.service.create("demo", CreateSpaceRequest(name="lab", image="docker.io/library/python:3.12"))
    assert world.workspace("lab") is None


def test_a_space_needs_the_dev_spaces_feature(world):
    world.eks.addons.clear()
    with pytest.raises(FeatureNotEnabledError, match="the 'devSpaces' feature"):
        world.service.create("demo", CreateSpaceRequest(name="lab"))


def test_more_gpus_than_a_node_has_is_refused(world):
    with pytest.raises(InvalidRequestError, match="at most 4"):
        world.service.create("demo", CreateSpaceRequest(name="lab", gpus=8))


def test_a_name_in_use_is_refused(world):
    world.service.create("demo", CreateSpaceRequest(name="lab"))
    with pytest.raises(SpaceNameInUseError):
        world.service.create("demo", CreateSpaceRequest(name="lab", appType="code-editor"))


def test_stopping_changes_only_the_desired_status(world):
    world.service.create("demo", CreateSpaceRequest(name="lab", gpus=1))
    stopped = world.service.update("demo", "lab", UpdateSpaceRequest(desiredStatus="Stopped"))
    assert (stopped.desiredStatus, stopped.status, stopped.gpus) == ("Stopped", "Stopping", 1)


def test_a_space_is_deleted_only_with_the_token_of_its_plan(world):
    world.service.create("demo", CreateSpaceRequest(name="lab"))
    with pytest.raises(ConfirmationRequiredError):
        world.service.delete("demo", "lab", "forged", OPERATOR)
    assert world.workspace("lab") is not None
    plan = world.service.plan_delete("demo", "lab", OPERATOR)
    world.service.delete("demo", "lab", plan.confirmationToken or "", OPERATOR)
    assert world.workspace("lab") is None
