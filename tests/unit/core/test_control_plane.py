"""A cluster's reachable EKS control plane: found once it serves an API endpoint, refused (409) before."""

from __future__ import annotations

import pytest

from controlplane.core.control_plane import reachable_control_plane
from controlplane.models.errors import ClusterNotReadyError
from tests.fakes.eks import InMemoryEksGateway

NAME = "eks-cluster-demo"


@pytest.fixture
def eks() -> InMemoryEksGateway:
    return InMemoryEksGateway()


def test_a_control_plane_with_an_api_endpoint_is_reachable(eks):
    eks.add_cluster(NAME)
    assert reachable_control_plane(eks, NAME, "demo").name == NAME


def test_an_absent_control_plane_is_refused_naming_the_cluster(eks):
    with pytest.raises(ClusterNotReadyError, match=r"'demo' has no reachable EKS control plane yet \(status absent\)"):
        reachable_control_plane(eks, NAME, "demo")


def test_a_control_plane_without_an_endpoint_yet_is_refused_with_its_status(eks):
    eks.add_cluster(NAME, status="CREATING", endpoint=None)
    with pytest.raises(ClusterNotReadyError, match=r"\(status CREATING\); GET /clusters/demo shows its stages"):
        reachable_control_plane(eks, NAME, "demo")


def test_an_updating_control_plane_is_reachable_unless_it_must_be_active(eks):
    eks.add_cluster(NAME, status="UPDATING")
    assert reachable_control_plane(eks, NAME, "demo").status == "UPDATING"
    with pytest.raises(ClusterNotReadyError, match="status UPDATING"):
        reachable_control_plane(eks, NAME, "demo", active=True)
