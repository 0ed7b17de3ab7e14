"""One EKS cluster's add-ons and Pod Identity associations as plain Python: a hand-moved clock, no moto."""

from typing import Any, get_args

import pytest

from controlplane.config import cluster_dependencies
from controlplane.core.features.catalog import addon_pins
from controlplane.models.clusters import KubernetesVersion
from sandbox.aws.eks.addons import ClusterAddons
from sandbox.aws.eks.catalog import CATALOG, INFERENCE_OPERATOR, TRAINING_OPERATOR, version_key
from sandbox.aws.eks.errors import EksError
from sandbox.aws.eks.health import can_run_pods

ARN = "arn:aws:eks:us-west-2:123456789012:cluster/ml-eks"
SECONDS = 5.0
ROLE = "arn:aws:iam::123456789012:role/r"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def no_nodes(tolerates: tuple[str, ...]) -> bool:
    """A cluster without nodes: nothing can run a pod."""
    return False


NODE = {"metadata": {"name": "node-1"}, "spec": {}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}}


@pytest.fixture
def nodes() -> list[dict[str, Any]]:
    """The cluster's Node objects: one Ready node unless a test takes it away."""
    return [NODE]


@pytest.fixture
def addons(clock: Clock, nodes: list[dict[str, Any]]) -> ClusterAddons:
    return ClusterAddons(ARN, "1.34", SECONDS, lambda tolerates: any(can_run_pods(n, tolerates) for n in nodes), clock)


def later(addons: ClusterAddons, clock: Clock) -> None:
    clock.now += SECONDS
    addons.advance()


def refused(call: Any) -> EksError:
    with pytest.raises(EksError) as raised:
        call()
    return raised.value


@pytest.mark.parametrize("kubernetes", get_args(KubernetesVersion))
def test_the_catalog_offers_every_pinned_add_on_at_or_above_its_pin(kubernetes: str) -> None:
    for name, pin in addon_pins(cluster_dependencies().addons).items():
        offered = CATALOG[name].compatible(kubernetes)
        assert any(version_key(version) >= version_key(pin) for version in offered), (name, pin, kubernetes)


def test_a_newer_kubernetes_version_is_served_only_by_newer_builds_of_some_pins() -> None:
    """What the control plane's version resolution is for: EKS refuses such a pin on the newest clusters."""
    pins = addon_pins(cluster_dependencies().addons)
    refused = [name for name, pin in pins.items() if pin not in CATALOG[name].compatible("1.35")]

    assert refused == ["cert-manager", "metrics-server"]


def test_an_add_on_settles_active_after_the_delay_and_then_deletes(addons: ClusterAddons, clock: Clock) -> None:
    created = addons.create_addon("metrics-server", "v0.7.2-eksbuild.3", tags={"a": "b"})
    addons.advance()
    assert created["status"] == "CREATING"

    later(addons, clock)
    assert addons.addon("metrics-server")["status"] == "ACTIVE"
    addons.delete_addon("metrics-server")
    assert addons.addon_names() == ["metrics-server"]
    later(addons, clock)
    assert addons.addon_names() == []
    assert refused(lambda: addons.addon("metrics-server")).status == 404


def test_without_a_version_an_add_on_gets_the_newest_for_the_kubernetes_version(clock: Clock) -> None:
    newest = ClusterAddons(ARN, "1.35", SECONDS, no_nodes, clock).create_addon("cert-manager")
    unknown = ClusterAddons(ARN, "1.19", SECONDS, no_nodes, clock).create_addon("cert-manager", "v1.17.2-eksbuild.1")

    assert newest["addonVersion"] == "v1.18.2-eksbuild.2"
    assert unknown["addonVersion"] == "v1.17.2-eksbuild.1"  # a version the catalog does not cover takes any


def test_a_dependent_fails_to_create_when_its_dependencies_are_not_active(addons: ClusterAddons, clock: Clock) -> None:
    addons.create_addon("cert-manager")
    addons.create_addon(TRAINING_OPERATOR)

    later(addons, clock)

    operator = addons.addon(TRAINING_OPERATOR)
    assert operator["status"] == "CREATE_FAILED"
    assert operator["health"]["issues"][0]["resourceIds"] == ["cert-manager", "eks-pod-identity-agent"]
    assert addons.addon("cert-manager")["status"] == "ACTIVE"


def test_a_dependency_below_its_minimum_version_counts_as_missing(addons: ClusterAddons, clock: Clock) -> None:
    for name, version in (
        ("aws-mountpoint-s3-csi-driver", "v1.14.1-eksbuild.1"),
        ("aws-fsx-csi-driver", "v1.6.0-eksbuild.1"),
        ("metrics-server", "v0.7.2-eksbuild.1"),
        ("cert-manager", "v1.18.2-eksbuild.1"),
    ):
        addons.create_addon(name, version if name != "metrics-server" else None)
    later(addons, clock)
    configuration = '{"executionRoleArn": "r", "tlsCertificateS3Bucket": "b"}'

    addons.create_addon(INFERENCE_OPERATOR, configuration=configuration)
    later(addons, clock)

    assert addons.addon(INFERENCE_OPERATOR)["status"] == "ACTIVE"


@pytest.mark.parametrize(
    ("name", "options", "fragment"),
    [
        ("not-an-addon", {}, "not supported"),
        ("cert-manager", {"version": "v9.9.9-eksbuild.1"}, "not supported"),
        ("metrics-server", {"configuration": "replicas: ["}, "JSON object"),
        (INFERENCE_OPERATOR, {"configuration": '{"executionRoleArn": "r"}'}, "tlsCertificateS3Bucket"),
        ("metrics-server", {"resolve_conflicts": "MAYBE"}, "resolveConflicts"),
        ("aws-fsx-csi-driver", {"pod_identities": (("sa", ROLE), ("sa", ROLE))}, "more than once"),
    ],
)
def test_a_request_eks_would_refuse_is_an_invalid_parameter_and_creates_nothing(
    addons: ClusterAddons, name: str, options: dict[str, Any], fragment: str
) -> None:
    error = refused(lambda: addons.create_addon(name, **options))

    assert (error.status, error.code) == (400, "InvalidParameterException") and fragment in error.message
    assert addons.addon_names() == []


def test_an_add_on_owns_the_associations_it_creates_until_it_is_deleted(addons: ClusterAddons, clock: Clock) -> None:
    addon = addons.create_addon("aws-fsx-csi-driver", pod_identities=(("fsx-csi-controller-sa", ROLE),))

    [summary] = addons.associations(namespace="kube-system")
    assert summary["ownerArn"] == addon["addonArn"]
    assert refused(lambda: addons.delete_association(summary["associationId"])).code == "InvalidRequestException"
    addons.delete_addon("aws-fsx-csi-driver")
    later(addons, clock)
    assert addons.associations() == []


def test_associations_are_unique_per_service_account_and_idempotent_by_token(addons: ClusterAddons) -> None:
    first = addons.create_association("team", "trainer", ROLE, token="t-1", options={"targetRoleArn": ROLE})
    again = addons.create_association("team", "trainer", ROLE, token="t-1")

    assert again is first and "externalId" in first
    assert refused(lambda: addons.create_association("team", "trainer", ROLE)).code == "ResourceInUseException"
    assert addons.associations(service_account="trainer") == addons.associations(namespace="team")
    assert addons.delete_association(first["associationId"]) is first
    assert refused(lambda: addons.association(first["associationId"])).status == 404


def test_an_add_on_needing_nodes_is_active_only_once_its_pods_have_had_time_to_start_on_a_new_node(
    addons: ClusterAddons, clock: Clock, nodes: list[dict[str, Any]]
) -> None:
    nodes.clear()
    addons.create_addon("metrics-server")
    later(addons, clock)
    assert addons.addon("metrics-server")["status"] == "DEGRADED"

    nodes.append(NODE)
    addons.advance()
    assert addons.addon("metrics-server")["status"] == "DEGRADED"
    later(addons, clock)
    assert addons.addon("metrics-server")["status"] == "ACTIVE"


def test_the_s3_csi_driver_needs_nodes_from_version_2_only(addons: ClusterAddons, clock: Clock, nodes: list) -> None:
    nodes.clear()
    addons.create_addon("aws-mountpoint-s3-csi-driver", "v1.15.0-eksbuild.1")
    later(addons, clock)
    assert addons.addon("aws-mountpoint-s3-csi-driver")["status"] == "ACTIVE"

    assert not CATALOG["aws-mountpoint-s3-csi-driver"].needs_nodes("v1.15.0-eksbuild.1")
    assert CATALOG["aws-mountpoint-s3-csi-driver"].needs_nodes("v2.1.0-eksbuild.1")
