"""Tiered checkpointing: TieredStorageConfig plus the IRSA chain, closed both ways."""

from __future__ import annotations

import pytest

from controlplane.core.features.catalog.tiered_storage import tiered_storage_access
from controlplane.core.naming import feature_tags, ownership_tags
from controlplane.models.errors import ClusterNotReadyError, ForeignResourceError
from controlplane.models.features import Feature, FeatureChange
from tests.fakes.deployment import DEPLOYMENT
from tests.unit.core.features.world import (
    ACCOUNT,
    HYPERPOD_NAME,
    ISSUER,
    OIDC_PROVIDER,
    TAG,
    WORKLOAD_BOUNDARY,
    FeatureWorld,
)

NAME = "instantstart-demo-tiered-ckpt"
POLICY_ARN = f"arn:aws:iam::{ACCOUNT}:policy/{NAME}"
SERVICE_ACCOUNT = "ServiceAccount/default/tiered-storage-sa"


@pytest.fixture
def world() -> FeatureWorld:
    return FeatureWorld()


def ensure(world: FeatureWorld, percentage: int | None = None) -> bool:
    change = FeatureChange(change="enable", percentage=percentage)
    return world.steps.ensure(Feature.TIERED_STORAGE, world.workflow_input(Feature.TIERED_STORAGE, change)).done


def remove(world: FeatureWorld) -> bool:
    ctx = world.workflow_input(Feature.TIERED_STORAGE, FeatureChange(change="disable"))
    return world.steps.remove(Feature.TIERED_STORAGE, ctx).done


def annotation(world: FeatureWorld) -> str | None:
    account = world.kubernetes_objects[SERVICE_ACCOUNT]
    return account["metadata"].get("annotations", {}).get("eks.amazonaws.com/role-arn")


def create_service_account_by_hand(world: FeatureWorld) -> None:
    metadata = {"name": "tiered-storage-sa", "namespace": "default"}
    world.kubernetes_objects[SERVICE_ACCOUNT] = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}


def test_ensure_builds_the_whole_chain_and_settles_once_the_cluster_is_in_service(world):
    assert ensure(world, percentage=40) is False
    role = world.iam.find_role(NAME)
    assert role is not None and POLICY_ARN in role.attached_policy_arns
    assert world.iam.roles[NAME].boundary_arn == WORKLOAD_BOUNDARY
    assert world.iam.policy_document(POLICY_ARN) == tiered_storage_access(DEPLOYMENT, TAG)
    trust = world.iam.roles[NAME].trust["Statement"][0]
    assert trust["Action"] == "sts:AssumeRoleWithWebIdentity"
    assert annotation(world) == role.arn
    labels = world.kubernetes_objects[SERVICE_ACCOUNT]["metadata"]["labels"]
    assert labels == {"app.kubernetes.io/managed-by": "instantstart", "instantstart.aws/feature": "tieredStorage"}
    assert world.hyperpod.sent_settings() == [
        {"TieredStorageConfig": {"Mode": "Enable", "InstanceMemoryAllocationPercentage": 40}}
    ]
    assert ensure(world, percentage=40) is False, "the cluster is still Updating"
    world.settle()
    assert ensure(world, percentage=40) is True
    assert len(world.hyperpod.sent_settings()) == 1, "a settled setting is not sent again"
    state = world.state(Feature.TIERED_STORAGE)
    assert (state.enabled, state.state) == (True, "enabled")
    assert state.settings["configMode"] == "custom" and state.settings["percentage"] == 40


def test_ensure_reuses_the_oidc_provider_of_the_dependencies_stage(world):
    world.enable(Feature.TIERED_STORAGE)
    assert world.iam.oidc_providers[OIDC_PROVIDER] == ownership_tags(DEPLOYMENT, TAG)


def test_ensure_creates_a_missing_oidc_provider_tagged_as_the_features(world):
    world.iam.oidc_providers.clear()
    assert world.enable(Feature.TIERED_STORAGE).done
    assert world.iam.oidc_providers[OIDC_PROVIDER] == feature_tags(DEPLOYMENT, TAG, Feature.TIERED_STORAGE)


def test_the_default_memory_share_sends_no_percentage(world):
    assert world.enable(Feature.TIERED_STORAGE).done
    assert world.hyperpod.sent_settings() == [{"TieredStorageConfig": {"Mode": "Enable"}}]
    assert world.state(Feature.TIERED_STORAGE).settings["configMode"] == "default"


def test_a_half_built_chain_is_partial_and_finished_by_enabling_again(world):
    ensure(world)
    del world.kubernetes_objects[SERVICE_ACCOUNT]
    world.settle()
    state = world.state(Feature.TIERED_STORAGE)
    assert state.state == "partial"
    assert state.message == "Half-built: enable again to finish it, or disable it."
    assert ensure(world) is True
    assert annotation(world) == world.iam.find_role(NAME).arn
    assert world.state(Feature.TIERED_STORAGE).state == "enabled"


def test_remove_deletes_exactly_the_chain_and_turns_the_setting_off(world):
    assert world.enable(Feature.TIERED_STORAGE).done
    assert remove(world) is False
    assert SERVICE_ACCOUNT not in world.kubernetes_objects
    assert world.iam.find_role(NAME) is None
    assert world.iam.find_policy(POLICY_ARN) is None
    assert world.iam.find_oidc_provider(ISSUER) is not None, "the dependencies stage's provider stays"
    assert world.hyperpod.sent_settings()[-1] == {"TieredStorageConfig": {"Mode": "Disable"}}
    world.settle()
    assert remove(world) is True
    assert world.state(Feature.TIERED_STORAGE).state == "disabled"


def test_disabled_lists_no_resources_although_the_clusters_oidc_provider_stays(world):
    world.enable(Feature.TIERED_STORAGE)
    assert "OIDC provider" in world.state(Feature.TIERED_STORAGE).resources
    world.disable(Feature.TIERED_STORAGE)
    assert world.iam.find_oidc_provider(ISSUER) is not None
    state = world.state(Feature.TIERED_STORAGE)
    assert (state.state, state.resources) == ("disabled", [])


def test_remove_deletes_the_oidc_provider_the_feature_created(world):
    world.iam.oidc_providers.clear()
    world.enable(Feature.TIERED_STORAGE)
    world.disable(Feature.TIERED_STORAGE)
    assert world.iam.find_oidc_provider(ISSUER) is None


def test_a_half_built_chain_is_removed_by_disabling(world):
    world.iam.create_role(
        NAME, {}, feature_tags(DEPLOYMENT, TAG, Feature.TIERED_STORAGE), "arn:aws:iam::123456789012:policy/boundary"
    )
    assert world.disable(Feature.TIERED_STORAGE).done
    assert world.iam.find_role(NAME) is None
    assert world.hyperpod.sent_settings() == []


def test_remove_leaves_what_is_not_ours(world):
    world.iam.create_role(NAME, {}, {}, "arn:aws:iam::123456789012:policy/boundary")
    world.iam.create_policy(NAME, {}, {})
    create_service_account_by_hand(world)
    assert remove(world) is True
    assert world.iam.find_role(NAME) is not None
    assert world.iam.find_policy(POLICY_ARN) is not None
    assert SERVICE_ACCOUNT in world.kubernetes_objects


@pytest.mark.parametrize("foreign", ["role", "policy", "service account"])
def test_ensure_refuses_a_link_of_the_chain_that_is_not_ours(world, foreign):
    if foreign == "role":
        world.iam.create_role(NAME, {}, {}, "arn:aws:iam::123456789012:policy/boundary")
    elif foreign == "policy":
        world.iam.create_policy(NAME, {}, {})
    else:
        create_service_account_by_hand(world)
    with pytest.raises(ForeignResourceError, match="not created by InstantStart"):
        ensure(world)


def test_ensure_needs_the_hyperpod_cluster(world):
    del world.hyperpod.clusters[HYPERPOD_NAME]
    with pytest.raises(ClusterNotReadyError, match="has no HyperPod cluster"):
        ensure(world)


def test_without_any_cluster_remove_deletes_the_iam_part(world):
    """Cluster deletion runs the removal after the clusters are gone."""
    assert world.enable(Feature.TIERED_STORAGE).done
    world.eks.clusters.clear()
    world.hyperpod.clusters.clear()
    assert remove(world) is True
    assert world.iam.find_role(NAME) is None and world.iam.find_policy(POLICY_ARN) is None
