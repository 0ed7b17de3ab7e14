"""Stage 3 steps against in-memory IAM, EKS and Kubernetes."""

import pytest

from controlplane.config import DependencyPins, ManifestPin
from controlplane.config.images import Image, ImageTable, Registry
from controlplane.core.dependencies.plan import dependency_actions
from controlplane.core.dependencies.steps import S3_CSI_ADDON, ClusterDependencyService
from controlplane.core.identity import s3_bucket_access
from controlplane.core.naming import S3_CSI_POLICY_NAME, ownership_tags
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.polling import Poller, PollSettings
from controlplane.models.errors import (
    DependencyFailedError,
    ForeignResourceError,
    ResourceNotReadyError,
    UnsupportedRegionError,
)
from controlplane.models.operations import OperationKind
from tests.fakes.account import ACCOUNT_ID
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.iam import InMemoryIamGateway
from tests.fakes.kubernetes import FixedManifests

BOUNDARY = "arn:aws:iam::123456789012:policy/workload-boundary"
# A registry with an account per Region, serving two of them.
IMAGES = ImageTable(
    registries={"ecr": Registry(hosts={"us-west-2": "111.ecr.us-west-2", "eu-west-1": "222.ecr.eu-west-1"})},
    images={"nvidia": Image(registry="ecr", repository="nvidia", tag="1")},
)
PINS = DependencyPins(
    addons={"eks-pod-identity-agent": "v1.3.0", S3_CSI_ADDON: "v1.9.0"},
    manifests={"nvidia-device-plugin": ManifestPin(file="nvidia.yaml", image="nvidia")},
    images=IMAGES,
)
DAEMONSET = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "nvidia", "namespace": "kube-system"}}


@pytest.fixture
def iam():
    return InMemoryIamGateway()


@pytest.fixture
def eks():
    gateway = InMemoryEksGateway()
    gateway.add_cluster("eks-cluster-demo")
    return gateway


@pytest.fixture
def render():
    return FixedManifests({("hyperpod-dependencies", "nvidia.yaml"): [DAEMONSET]})


@pytest.fixture
def steps(iam, eks, kubernetes, render, clock):
    poller = Poller(PollSettings(first_wait_seconds=5, max_wait_seconds=5), clock)
    return ClusterDependencyService(iam, eks, kubernetes, render, PINS, poller, BOUNDARY, DEPLOYMENT)


@pytest.fixture
def ctx(make_record):
    return workflow_input(OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES, "op-1", make_record("eks"), ACCOUNT_ID)


def test_the_oidc_provider_is_created_once_for_the_clusters_issuer(steps, ctx, iam):
    assert steps.ensure_oidc_provider(ctx)["action"] == "created"
    assert steps.ensure_oidc_provider(ctx)["action"] == "found"
    (arn,) = iam.oidc_providers
    assert arn.endswith("/oidc.eks.us-west-2.amazonaws.com/id/EKS-CLUSTER-DEMO")


def test_steps_wait_for_an_active_cluster(steps, ctx, eks):
    eks.add_cluster("eks-cluster-demo", status="UPDATING")
    with pytest.raises(ResourceNotReadyError, match="not ACTIVE"):
        steps.ensure_oidc_provider(ctx)


def test_the_s3_csi_role_needs_the_oidc_provider_first(steps, ctx):
    with pytest.raises(ResourceNotReadyError, match="'Ensure OIDC Provider' must run first"):
        steps.ensure_s3_csi_driver_role(ctx)


def test_the_s3_csi_role_trusts_its_service_account_and_reads_only_the_clusters_buckets(steps, ctx, iam):
    steps.ensure_oidc_provider(ctx)
    steps.ensure_s3_csi_driver_role(ctx)
    stored = iam.roles["instantstart-demo-s3-csi"]
    condition = stored.trust["Statement"][0]["Condition"]["StringEquals"]
    assert "system:serviceaccount:kube-system:s3-csi-driver-sa" in condition.values()
    assert stored.boundary_arn == BOUNDARY
    assert stored.inline[S3_CSI_POLICY_NAME] == s3_bucket_access(DEPLOYMENT, ["instantstart-demo-*"])


def test_a_foreign_role_with_the_s3_csi_roles_name_is_refused(steps, ctx, iam):
    steps.ensure_oidc_provider(ctx)
    iam.create_role("instantstart-demo-s3-csi", {}, {}, "arn:aws:iam::123456789012:policy/boundary")
    with pytest.raises(ForeignResourceError):
        steps.ensure_s3_csi_driver_role(ctx)


def test_missing_addons_are_created_at_their_pins_with_the_s3_driver_using_its_role(steps, ctx, eks):
    steps.ensure_oidc_provider(ctx)
    steps.ensure_s3_csi_driver_role(ctx)
    eks.create_addon("eks-cluster-demo", "eks-pod-identity-agent", "v0", None, {})
    assert steps.ensure_addons(ctx) == {"eks-pod-identity-agent": "CREATING", S3_CSI_ADDON: "CREATING"}
    assert eks.addons[("eks-cluster-demo", "eks-pod-identity-agent")].version == "v0"
    assert eks.addons[("eks-cluster-demo", S3_CSI_ADDON)].version == "v1.9.0"
    assert eks.addons[("eks-cluster-demo", S3_CSI_ADDON)].tags == ownership_tags(DEPLOYMENT, "demo")
    assert eks.addon_requests[("eks-cluster-demo", S3_CSI_ADDON)].role_arn.endswith(":role/instantstart-demo-s3-csi")


def test_addons_are_polled_until_active_and_a_degraded_one_fails_with_its_issues(steps, ctx, eks):
    steps.ensure_addons(ctx)
    eks.set_addon_status("eks-cluster-demo", "eks-pod-identity-agent", "ACTIVE")
    waiting = steps.check_addons(ctx)
    assert (waiting.done, waiting.status) == (False, f"waiting for {S3_CSI_ADDON}")
    eks.set_addon_status("eks-cluster-demo", S3_CSI_ADDON, "DEGRADED", "InsufficientNumberOfReplicas: 0/2")
    with pytest.raises(DependencyFailedError, match="InsufficientNumberOfReplicas"):
        steps.check_addons(ctx)
    eks.set_addon_status("eks-cluster-demo", S3_CSI_ADDON, "ACTIVE")
    assert steps.check_addons(ctx).done


def test_hyperpod_dependencies_are_rendered_for_the_clusters_region_and_applied(steps, ctx, render, kubernetes):
    assert steps.apply_hyperpod_dependencies(ctx) == {"applied": "DaemonSet/kube-system/nvidia"}
    assert render.rendered == [("hyperpod-dependencies", "nvidia.yaml", {"image": "111.ecr.us-west-2/nvidia:1"})]
    assert "DaemonSet/kube-system/nvidia" in kubernetes.api("eks-cluster-demo").objects


def test_each_region_gets_the_image_of_its_own_registry_and_one_without_a_registry_is_refused(steps) -> None:
    (daemon_set,) = steps.hyperpod_dependency_objects("eu-west-1")
    assert daemon_set["metadata"]["annotations"]["image"] == "222.ecr.eu-west-1/nvidia:1"
    with pytest.raises(UnsupportedRegionError) as refused:
        steps.hyperpod_dependency_objects("us-east-1")
    assert refused.value.details == {
        "region": "us-east-1",
        "images": ["nvidia-device-plugin"],
        "supportedRegions": ["eu-west-1", "us-west-2"],
    }


def test_deleting_identities_removes_only_what_the_stage_created(steps, ctx, iam, make_record):
    steps.ensure_oidc_provider(ctx)
    steps.ensure_s3_csi_driver_role(ctx)
    foreign = iam.create_oidc_provider("https://oidc.example/other", {})
    deleting = workflow_input(OperationKind.DELETE_EKS_CLUSTER, "op-2", make_record(), ACCOUNT_ID)
    assert steps.delete_dependency_identities(deleting) == {"deleted": "role instantstart-demo-s3-csi, oidc provider"}
    assert list(iam.oidc_providers) == [foreign]
    assert steps.delete_dependency_identities(deleting) == {"deleted": "nothing left"}


def test_the_plan_lists_the_provider_the_role_every_pinned_addon_and_manifest(make_record):
    actions = dependency_actions(DEPLOYMENT, make_record("eks"), PINS)
    assert [(action.resource, action.name) for action in actions] == [
        ("AWS::IAM::OIDCProvider", "eks-cluster-demo issuer"),
        ("AWS::IAM::Role", "instantstart-demo-s3-csi"),
        ("AWS::EKS::Addon", "eks-pod-identity-agent"),
        ("AWS::EKS::Addon", S3_CSI_ADDON),
        ("Kubernetes manifest", "nvidia-device-plugin"),
    ]
