"""Stage 3 steps against in-memory IAM, EKS and Kubernetes."""

import pytest

from controlplane.config import DependencyPins, ManifestPin
from controlplane.config.images import Image, ImageTable, Registry
from controlplane.core import deadlines
from controlplane.core.dependencies.plan import dependency_actions
from controlplane.core.dependencies.steps import S3_CSI_ADDON, ClusterDependencyService
from controlplane.core.identity import s3_bucket_access
from controlplane.core.naming import S3_CSI_POLICY_NAME, ownership_tags
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.ports.eks import AddonIssue
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.models.errors import (
    DependencyFailedError,
    ForeignResourceError,
    ResourceNotReadyError,
    UnsupportedRegionError,
    WaitTimeoutError,
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
# cert-manager runs Deployments: listed first, it is still created after the add-ons that need no node.
NODE_PINS = DependencyPins(
    addons={"cert-manager": "v1.18.2-eksbuild.1", "eks-pod-identity-agent": "v1.3.0"}, manifests={}, images=IMAGES
)
REPLICAS = AddonIssue("InsufficientNumberOfReplicas", "The add-on is unhealthy because it doesn't have the desired ...")
DAEMONSET = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "nvidia", "namespace": "kube-system"}}


@pytest.fixture
def iam():
    return InMemoryIamGateway()


@pytest.fixture
def eks():
    gateway = InMemoryEksGateway()
    gateway.add_cluster("eks-cluster-demo")
    for addon, version in (*PINS.addons.items(), *NODE_PINS.addons.items()):
        gateway.offer(addon, version)
    return gateway


@pytest.fixture
def render():
    return FixedManifests({("hyperpod-dependencies", "nvidia.yaml"): [DAEMONSET]})


@pytest.fixture
def steps(iam, eks, kubernetes, render, clock):
    poller = Poller(PollSettings(first_wait_seconds=5, max_wait_seconds=5), clock)
    return ClusterDependencyService(iam, eks, kubernetes, render, PINS, poller, BOUNDARY, DEPLOYMENT)


@pytest.fixture
def node_steps(iam, eks, kubernetes, render, clock):
    poller = Poller(PollSettings(first_wait_seconds=5, max_wait_seconds=5), clock)
    return ClusterDependencyService(iam, eks, kubernetes, render, NODE_PINS, poller, BOUNDARY, DEPLOYMENT)


def ready_node(name: str = "node-1", *, ready: bool = True, schedulable: bool = True) -> KubernetesNode:
    return KubernetesNode(name, ready, schedulable, labels={}, capacity={}, allocatable={})


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


def test_addons_are_polled_until_active_and_a_degraded_one_needing_no_node_fails_with_its_issues(steps, ctx, eks):
    steps.ensure_addons(ctx)
    eks.set_addon_status("eks-cluster-demo", "eks-pod-identity-agent", "ACTIVE")
    waiting = steps.check_addons(ctx)
    assert (waiting.done, waiting.status) == (False, f"waiting for {S3_CSI_ADDON}")
    # The S3 driver (v1) runs no Deployment: short of replicas, it has failed, nodes or not.
    eks.set_addon_status("eks-cluster-demo", S3_CSI_ADDON, "DEGRADED", REPLICAS)
    with pytest.raises(DependencyFailedError, match=f"{S3_CSI_ADDON} is DEGRADED: InsufficientNumberOfReplicas"):
        steps.check_addons(ctx)
    eks.set_addon_status("eks-cluster-demo", S3_CSI_ADDON, "ACTIVE")
    assert steps.check_addons(ctx).done


def test_addons_that_need_no_node_are_created_first(node_steps, ctx, eks):
    assert list(node_steps.ensure_addons(ctx)) == ["eks-pod-identity-agent", "cert-manager"]


def test_without_a_schedulable_node_an_addon_needing_nodes_short_of_replicas_is_installed_and_waits_for_them(
    node_steps, ctx, eks, kubernetes
):
    node_steps.ensure_addons(ctx)
    eks.set_addon_status("eks-cluster-demo", "eks-pod-identity-agent", "ACTIVE")
    eks.set_addon_status("eks-cluster-demo", "cert-manager", "DEGRADED", REPLICAS)
    kubernetes.api("eks-cluster-demo").nodes = [ready_node("cordoned", schedulable=False), ready_node(ready=False)]

    checked = node_steps.check_addons(ctx)

    assert checked.done
    assert checked.status == "ACTIVE: eks-pod-identity-agent; installed, waiting for nodes: cert-manager"


def test_with_a_schedulable_node_an_addon_short_of_replicas_is_polled_until_active(node_steps, ctx, eks, kubernetes):
    node_steps.ensure_addons(ctx)
    eks.set_addon_status("eks-cluster-demo", "eks-pod-identity-agent", "ACTIVE")
    eks.set_addon_status("eks-cluster-demo", "cert-manager", "DEGRADED", REPLICAS)
    kubernetes.api("eks-cluster-demo").nodes = [ready_node()]

    assert (node_steps.check_addons(ctx).done, node_steps.check_addons(ctx).status) == (
        False,
        "waiting for cert-manager",
    )
    eks.set_addon_status("eks-cluster-demo", "cert-manager", "ACTIVE")
    assert node_steps.check_addons(ctx).status == "ACTIVE: eks-pod-identity-agent, cert-manager"


def test_an_addon_needing_nodes_degraded_for_another_reason_fails(node_steps, ctx, eks):
    node_steps.ensure_addons(ctx)
    conflict = AddonIssue("ConfigurationConflict", "Conflicts found when trying to apply. Will not continue.")
    eks.set_addon_status("eks-cluster-demo", "cert-manager", "DEGRADED", REPLICAS, conflict)

    with pytest.raises(DependencyFailedError, match=r"cert-manager is DEGRADED: .*ConfigurationConflict"):
        node_steps.check_addons(ctx)


def test_after_the_nodes_join_every_addon_must_become_active_and_a_failed_one_fails(node_steps, ctx, eks, clock):
    node_steps.ensure_addons(ctx)
    eks.set_addon_status("eks-cluster-demo", "eks-pod-identity-agent", "ACTIVE")
    eks.set_addon_status("eks-cluster-demo", "cert-manager", "DEGRADED", REPLICAS)

    waiting = node_steps.check_addons_healthy(ctx)
    assert not waiting.done and "cert-manager DEGRADED (InsufficientNumberOfReplicas" in waiting.status
    clock.current += deadlines.ADDONS_HEALTHY
    polled = ctx.model_copy(update={"poll": waiting})
    with pytest.raises(WaitTimeoutError, match="to be ACTIVE on the new nodes"):
        node_steps.check_addons_healthy(polled)
    eks.set_addon_status("eks-cluster-demo", "cert-manager", "ACTIVE")
    assert node_steps.check_addons_healthy(polled).status == "ACTIVE: eks-pod-identity-agent, cert-manager"
    eks.set_addon_status("eks-cluster-demo", "cert-manager", "CREATE_FAILED")
    with pytest.raises(DependencyFailedError, match="cert-manager is CREATE_FAILED: no health details"):
        node_steps.check_addons_healthy(ctx)


def test_an_addon_is_created_at_its_pin_when_eks_offers_it_for_the_clusters_kubernetes_version(node_steps, ctx, eks):
    eks.offer("cert-manager", "v1.18.2-eksbuild.2", "v1.18.2-eksbuild.1", "v1.17.2-eksbuild.1", kubernetes="1.34")

    node_steps.ensure_addons(ctx)

    assert eks.addons[("eks-cluster-demo", "cert-manager")].version == "v1.18.2-eksbuild.1"


def test_on_a_kubernetes_version_the_pin_misses_the_lowest_newer_version_is_created(node_steps, ctx, eks):
    eks.offer("cert-manager", "v1.19.0-eksbuild.1", "v1.17.2-eksbuild.1", "v1.18.2-eksbuild.3", kubernetes="1.34")

    node_steps.ensure_addons(ctx)

    assert eks.addons[("eks-cluster-demo", "cert-manager")].version == "v1.18.2-eksbuild.3"


def test_no_offered_version_at_or_above_the_pin_fails_naming_the_addon_and_the_kubernetes_version(node_steps, ctx, eks):
    eks.offer("cert-manager", "v1.17.2-eksbuild.1", kubernetes="1.34")

    with pytest.raises(DependencyFailedError) as refused:
        node_steps.ensure_addons(ctx)

    message = str(refused.value)
    assert "cert-manager" in message and "v1.18.2-eksbuild.1" in message and "Kubernetes 1.34" in message
    assert "offered: v1.17.2-eksbuild.1" in message
    assert ("eks-cluster-demo", "cert-manager") not in eks.addons


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
