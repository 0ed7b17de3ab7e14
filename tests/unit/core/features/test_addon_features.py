"""Features that are one EKS add-on (cert-manager, FSx CSI driver, training operator, observability, inference
operator): their preconditions, their role and bucket, and removal in reverse."""

from __future__ import annotations

import json

import pytest

from controlplane.config import cluster_dependencies
from controlplane.core.features.catalog import addon_pins
from controlplane.core.naming import feature_tags
from controlplane.core.ports.eks import AddonIssue
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.models.errors import ClusterNotReadyError, DependencyFailedError, ForeignResourceError
from controlplane.models.features import Feature, FeatureChange
from controlplane.models.workflow import PollState
from tests.fakes.deployment import DEPLOYMENT
from tests.unit.core.features.world import ACCOUNT, EKS_NAME, HYPERPOD_NAME, REGION, TAG, FeatureWorld

FSX_ROLE = "instantstart-demo-fsx-csi"
OBSERVABILITY_ROLE = "instantstart-demo-observability"
INFERENCE_ROLE = "instantstart-demo-inference"
TLS_BUCKET = f"hyperpod-tls-demo-{ACCOUNT}-{REGION}"
REPLICAS = AddonIssue("InsufficientNumberOfReplicas", "The add-on is unhealthy because it doesn't have the desired ...")


@pytest.fixture
def world() -> FeatureWorld:
    return FeatureWorld()


def ensure(world: FeatureWorld, feature: Feature, first_attempt: bool = True) -> bool:
    ctx = world.workflow_input(feature, FeatureChange(change="enable"))
    if not first_attempt:
        ctx = ctx.model_copy(update={"poll": PollState(done=False, attempts=1, waitSeconds=5)})
    return world.steps.ensure(feature, ctx).done


def remove(world: FeatureWorld, feature: Feature) -> bool:
    return world.steps.remove(feature, world.workflow_input(feature, FeatureChange(change="disable"))).done


def test_cert_manager_installs_the_pinned_addon_with_the_features_tags_and_settles_when_active(world):
    assert ensure(world, Feature.CERT_MANAGER) is False
    addon = world.eks.find_addon(EKS_NAME, "cert-manager")
    assert addon.version == cluster_dependencies().addons["cert-manager"]
    assert addon.tags == feature_tags(DEPLOYMENT, TAG, Feature.CERT_MANAGER)
    assert world.eks.addon_requests[(EKS_NAME, "cert-manager")].role_arn is None
    assert ensure(world, Feature.CERT_MANAGER) is False, "still CREATING"
    world.settle()
    assert ensure(world, Feature.CERT_MANAGER) is True
    assert world.state(Feature.CERT_MANAGER).state == "enabled"


def test_a_failed_addon_of_ours_is_replaced_on_the_first_attempt(world):
    world.install_addon(
        "cert-manager", status="CREATE_FAILED", tags=feature_tags(DEPLOYMENT, TAG, Feature.CERT_MANAGER)
    )
    assert world.state(Feature.CERT_MANAGER).state == "partial"
    assert ensure(world, Feature.CERT_MANAGER) is False
    assert world.eks.find_addon(EKS_NAME, "cert-manager").status == "DELETING"
    assert world.enable(Feature.CERT_MANAGER).done
    assert world.eks.find_addon(EKS_NAME, "cert-manager").status == "ACTIVE"


def test_an_addon_that_fails_again_in_the_same_run_is_reported(world):
    world.install_addon("cert-manager", status="DEGRADED", tags=feature_tags(DEPLOYMENT, TAG, Feature.CERT_MANAGER))
    with pytest.raises(DependencyFailedError, match="Add-on cert-manager is DEGRADED"):
        ensure(world, Feature.CERT_MANAGER, first_attempt=False)


def test_an_addon_needing_nodes_enabled_before_any_node_exists_is_enabled_and_waits_for_them(world):
    """A cluster without nodes (the world has none): cert-manager, DEGRADED for want of replicas, is not failed."""
    world.install_addon("cert-manager", status="DEGRADED", tags=feature_tags(DEPLOYMENT, TAG, Feature.CERT_MANAGER))
    world.eks.set_addon_status(EKS_NAME, "cert-manager", "DEGRADED", REPLICAS)

    assert ensure(world, Feature.CERT_MANAGER, first_attempt=True) is True
    assert world.eks.find_addon(EKS_NAME, "cert-manager").status == "DEGRADED", "not replaced"
    state = world.state(Feature.CERT_MANAGER)
    assert (state.state, state.status) == ("enabled", "DEGRADED")
    assert state.message == "Installed, waiting for a node its pods can run on."


def test_an_addon_short_of_replicas_while_a_node_could_run_its_pods_is_still_settling(world):
    world.kubernetes.api(EKS_NAME).nodes = [KubernetesNode("node-1", True, True, {}, {}, {})]
    world.install_addon("cert-manager", status="DEGRADED", tags=feature_tags(DEPLOYMENT, TAG, Feature.CERT_MANAGER))
    world.eks.set_addon_status(EKS_NAME, "cert-manager", "DEGRADED", REPLICAS)

    assert ensure(world, Feature.CERT_MANAGER, first_attempt=False) is False
    assert world.state(Feature.CERT_MANAGER).message is None


def test_a_feature_addon_gets_the_lowest_version_above_its_pin_when_eks_no_longer_offers_the_pin(world):
    pin = addon_pins(cluster_dependencies().addons)["aws-fsx-csi-driver"]
    world.eks.offer("aws-fsx-csi-driver", "v1.8.0-eksbuild.1", "v1.7.1-eksbuild.2", kubernetes="1.32")

    assert world.enable(Feature.FSX_CSI_DRIVER).done

    assert pin == "v1.7.0-eksbuild.1"
    assert world.eks.find_addon(EKS_NAME, "aws-fsx-csi-driver").version == "v1.7.1-eksbuild.2"


def test_an_addon_installed_by_hand_is_never_removed(world):
    world.install_addon("cert-manager", tags={})
    with pytest.raises(ForeignResourceError, match="installed outside InstantStart"):
        remove(world, Feature.CERT_MANAGER)
    assert world.eks.find_addon(EKS_NAME, "cert-manager").status == "ACTIVE"


def test_fsx_csi_driver_gets_its_own_irsa_role_passed_as_the_service_account_role(world):
    assert world.enable(Feature.FSX_CSI_DRIVER).done
    role = world.iam.find_role(FSX_ROLE)
    assert role.attached_policy_arns == frozenset({"arn:aws:iam::aws:policy/AmazonFSxFullAccess"})
    condition = world.iam.roles[FSX_ROLE].trust["Statement"][0]["Condition"]["StringEquals"]
    assert "system:serviceaccount:kube-system:fsx-csi-controller-sa" in condition.values()
    assert world.eks.addon_requests[(EKS_NAME, "aws-fsx-csi-driver")].role_arn == role.arn
    state = world.state(Feature.FSX_CSI_DRIVER)
    assert state.resources == ["add-on aws-fsx-csi-driver", f"role {FSX_ROLE}"]


def test_fsx_csi_driver_needs_the_clusters_oidc_provider(world):
    world.iam.oidc_providers.clear()
    with pytest.raises(ClusterNotReadyError, match="has no IAM OIDC provider"):
        ensure(world, Feature.FSX_CSI_DRIVER)


def test_removal_deletes_the_addon_first_and_its_role_once_the_addon_is_gone(world):
    assert world.enable(Feature.FSX_CSI_DRIVER).done
    assert remove(world, Feature.FSX_CSI_DRIVER) is False
    assert world.iam.find_role(FSX_ROLE) is not None, "the add-on still uses the role while DELETING"
    assert remove(world, Feature.FSX_CSI_DRIVER) is False
    world.settle()
    assert remove(world, Feature.FSX_CSI_DRIVER) is True
    assert world.iam.find_role(FSX_ROLE) is None
    assert world.state(Feature.FSX_CSI_DRIVER).state == "disabled"


def test_a_half_built_addon_feature_is_partial_finished_by_enable_and_removed_by_disable(world):
    world.iam.create_role(
        FSX_ROLE, {}, feature_tags(DEPLOYMENT, TAG, Feature.FSX_CSI_DRIVER), "arn:aws:iam::123456789012:policy/boundary"
    )
    assert world.state(Feature.FSX_CSI_DRIVER).state == "partial"
    assert world.enable(Feature.FSX_CSI_DRIVER).done
    assert world.iam.find_role(FSX_ROLE).attached_policy_arns
    assert world.disable(Feature.FSX_CSI_DRIVER).done
    assert world.iam.find_role(FSX_ROLE) is None


def test_a_role_of_the_same_name_that_is_not_ours_is_refused(world):
    world.iam.create_role(FSX_ROLE, {}, {}, "arn:aws:iam::123456789012:policy/boundary")
    with pytest.raises(ForeignResourceError, match=f"IAM role {FSX_ROLE} exists"):
        ensure(world, Feature.FSX_CSI_DRIVER)


def test_training_operator_needs_its_pod_identity_association_from_the_hyperpod_stage(world):
    world.eks.pod_identities.clear()
    with pytest.raises(ClusterNotReadyError, match="pod identity association"):
        ensure(world, Feature.TRAINING_OPERATOR)
    assert world.eks.find_addon(EKS_NAME, "amazon-sagemaker-hyperpod-training-operator") is None


def test_training_operator_installs_the_addon_once_its_identity_is_there(world):
    assert world.enable(Feature.TRAINING_OPERATOR).done


@pytest.mark.parametrize("feature", [Feature.TRAINING_OPERATOR, Feature.OBSERVABILITY])
def test_pod_identity_addons_need_the_pod_identity_agent(world, feature):
    del world.eks.addons[(EKS_NAME, "eks-pod-identity-agent")]
    with pytest.raises(ClusterNotReadyError, match="eks-pod-identity-agent add-on is missing"):
        ensure(world, feature)


@pytest.mark.parametrize(
    "feature", [Feature.TRAINING_OPERATOR, Feature.OBSERVABILITY, Feature.INFERENCE_OPERATOR, Feature.TASK_GOVERNANCE]
)
def test_hyperpod_addons_need_the_hyperpod_cluster(world, feature):
    del world.hyperpod.clusters[HYPERPOD_NAME]
    with pytest.raises(ClusterNotReadyError, match="has no HyperPod cluster"):
        ensure(world, feature)


def test_observability_role_reaches_the_addon_through_a_pod_identity_association(world):
    assert world.enable(Feature.OBSERVABILITY).done
    role = world.iam.find_role(OBSERVABILITY_ROLE)
    assert world.iam.roles[OBSERVABILITY_ROLE].trust["Statement"][0]["Principal"] == {
        "Service": "pods.eks.amazonaws.com"
    }
    call = world.eks.addon_requests[(EKS_NAME, "amazon-sagemaker-hyperpod-observability")]
    assert call.pod_identities == {"hyperpod-observability-operator-otel-collector": role.arn}
    assert call.role_arn is None


def test_inference_operator_is_configured_with_its_role_bucket_and_hyperpod_cluster(world):
    assert world.enable(Feature.INFERENCE_OPERATOR).done
    role = world.iam.find_role(INFERENCE_ROLE)
    call = world.eks.addon_requests[(EKS_NAME, "amazon-sagemaker-hyperpod-inference")]
    assert json.loads(call.configuration) == {
        "executionRoleArn": role.arn,
        "tlsCertificateS3Bucket": TLS_BUCKET,
        "hyperpodClusterArn": world.hyperpod.clusters[HYPERPOD_NAME].arn,
    }
    assert call.role_arn is None, "the role reaches the add-on through its configuration"
    assert world.buckets.bucket_tags(TLS_BUCKET) == feature_tags(DEPLOYMENT, TAG, Feature.INFERENCE_OPERATOR)
    statements = world.iam.roles[INFERENCE_ROLE].trust["Statement"]
    assert statements[1]["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    assert statements[1]["Condition"] == {"ArnLike": {"aws:SourceArn": f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:*"}}
    assert world.state(Feature.INFERENCE_OPERATOR).settings["tlsCertificateBucket"] == TLS_BUCKET


def test_inference_operator_needs_the_stage_3_addons_active(world):
    world.install_addon("metrics-server", status="CREATING")
    with pytest.raises(ClusterNotReadyError, match="add-ons metrics-server ACTIVE"):
        ensure(world, Feature.INFERENCE_OPERATOR)


def test_inference_operator_removal_deletes_the_role_and_bucket_after_the_addon(world):
    assert world.enable(Feature.INFERENCE_OPERATOR).done
    assert world.disable(Feature.INFERENCE_OPERATOR).done
    assert world.iam.find_role(INFERENCE_ROLE) is None
    assert TLS_BUCKET not in world.buckets.buckets


def test_a_bucket_of_the_same_name_that_is_not_ours_is_refused_and_kept(world):
    world.buckets.create_bucket(TLS_BUCKET, {})
    with pytest.raises(ForeignResourceError, match=f"S3 bucket {TLS_BUCKET} exists"):
        ensure(world, Feature.INFERENCE_OPERATOR)
    world.disable(Feature.INFERENCE_OPERATOR)
    assert TLS_BUCKET in world.buckets.buckets


def test_task_governance_installs_its_addon_at_the_pin_without_role_or_configuration(world):
    assert world.enable(Feature.TASK_GOVERNANCE).done
    call = world.eks.addon_requests[(EKS_NAME, "amazon-sagemaker-hyperpod-taskgovernance")]
    assert (call.role_arn, call.configuration, call.pod_identities) == (None, None, None)
    assert world.state(Feature.TASK_GOVERNANCE).settings["version"] == "v1.6.0-eksbuild.1"
