"""Managed Karpenter: the panel's checks of a request, and the chain role → AutoScaling → NodeClass/NodePool."""

from __future__ import annotations

from typing import Any

import pytest

from controlplane.core.features.catalog.karpenter import karpenter_access
from controlplane.core.naming import KARPENTER_POLICY_NAME, feature_tags
from controlplane.models.errors import (
    ClusterNotReadyError,
    DependencyFailedError,
    ForeignResourceError,
    InvalidRequestError,
)
from controlplane.models.features import Feature, FeatureChange, UpdateFeaturesRequest
from tests.fakes.deployment import DEPLOYMENT
from tests.unit.core.features.world import AUTOSCALING_BOUNDARY, HYPERPOD_NAME, TAG, FeatureWorld, group

ROLE = "instantstart-demo-karpenter"
NODE_CLASS = "HyperpodNodeClass/instantstart"
NODE_POOL = "NodePool/instantstart"
ENABLE = FeatureChange(change="enable", instanceGroups=["workers"])


@pytest.fixture
def world() -> FeatureWorld:
    return FeatureWorld()


def plan(world: FeatureWorld, **karpenter: Any) -> Any:
    return world.panel.plan(TAG, UpdateFeaturesRequest.model_validate({"karpenter": {"enabled": True, **karpenter}}))


def ensure(world: FeatureWorld, change: FeatureChange = ENABLE) -> bool:
    return world.steps.ensure(Feature.KARPENTER, world.workflow_input(Feature.KARPENTER, change)).done


def remove(world: FeatureWorld) -> bool:
    ctx = world.workflow_input(Feature.KARPENTER, FeatureChange(change="disable"))
    return world.steps.remove(Feature.KARPENTER, ctx).done


def test_enabling_without_instance_groups_is_refused_listing_the_clusters_groups(world):
    world.add_hyperpod(HYPERPOD_NAME, group("workers"), group("spare"))
    with pytest.raises(InvalidRequestError, match=r"this cluster's groups: spare, workers") as refused:
        plan(world)
    assert refused.value.details["instanceGroups"] == ["spare", "workers"]


def test_an_unknown_instance_group_is_refused_naming_it(world):
    with pytest.raises(InvalidRequestError, match="no instance group gpus in cluster 'demo'") as refused:
        plan(world, instanceGroups=["workers", "gpus"])
    assert refused.value.details["unknown"] == ["gpus"]


@pytest.mark.parametrize(
    ("details", "reason"),
    [
        (
            {
                "capacity_type": "training-plan",
                "training_plan_arn": "arn:aws:sagemaker:us-west-2:123456789012:training-plan/p",
            },
            "uses a training plan",
        ),
        ({"deep_health_checks": True}, "runs deep health checks"),
        ({"capacity_type": "spot"}, "uses Spot capacity"),
    ],
)
def test_a_group_karpenter_cannot_scale_is_refused_with_the_reason(world, details, reason):
    world.add_hyperpod(HYPERPOD_NAME, group("workers", **details))
    with pytest.raises(InvalidRequestError, match="karpenter cannot scale") as refused:
        plan(world, instanceGroups=["workers"])
    assert refused.value.details["unsupported"] == [f"workers ({reason})"]


def test_an_on_demand_group_is_accepted():
    world = FeatureWorld()
    world.add_hyperpod(HYPERPOD_NAME, group("workers", capacity_type="on-demand"))
    assert plan(world, instanceGroups=["workers"]).changes.of(Feature.KARPENTER).change == "enable"


def test_a_cluster_without_automatic_node_recovery_is_refused_naming_the_setting(world):
    world.add_hyperpod(HYPERPOD_NAME, NodeRecovery="None")
    with pytest.raises(ClusterNotReadyError, match="NodeRecovery None") as refused:
        plan(world, instanceGroups=["workers"])
    assert refused.value.details == {"feature": "karpenter"}


def test_ensure_creates_the_role_then_enables_autoscaling_then_applies_the_node_class_and_pool(world):
    assert ensure(world) is False
    role = world.iam.find_role(ROLE)
    assert role is not None and role.tags == feature_tags(DEPLOYMENT, TAG, Feature.KARPENTER)
    assert world.iam.roles[ROLE].boundary_arn == AUTOSCALING_BOUNDARY
    assert world.iam.roles[ROLE].trust["Statement"][0]["Principal"] == {"Service": "hyperpod.sagemaker.amazonaws.com"}
    cluster_arn = world.hyperpod.clusters[HYPERPOD_NAME].arn
    assert world.iam.role_policy(ROLE, KARPENTER_POLICY_NAME) == karpenter_access(cluster_arn)
    assert world.hyperpod.sent_settings() == []

    assert ensure(world) is False
    assert world.hyperpod.sent_settings() == [
        {"ClusterRole": role.arn, "AutoScaling": {"Mode": "Enable", "AutoScalerType": "Karpenter"}}
    ]
    assert ensure(world) is False, "autoscaling is still Creating"
    assert world.kubernetes_objects == {}

    world.settle()
    assert ensure(world) is True
    assert world.kubernetes_objects[NODE_CLASS]["spec"] == {"instanceGroups": ["workers"]}
    assert world.kubernetes_objects[NODE_POOL]["spec"]["template"]["spec"]["nodeClassRef"]["name"] == "instantstart"
    state = world.state(Feature.KARPENTER)
    assert (state.enabled, state.state) == (True, "enabled")
    assert state.settings == {"instanceGroups": ["workers"], "roleArn": role.arn}


def test_changing_the_groups_reapplies_the_node_class(world):
    world.add_hyperpod(HYPERPOD_NAME, group("workers"), group("spare"))
    assert world.enable(Feature.KARPENTER, ENABLE).done
    assert ensure(world, FeatureChange(change="update", instanceGroups=["workers", "spare"])) is True
    assert world.kubernetes_objects[NODE_CLASS]["spec"] == {"instanceGroups": ["workers", "spare"]}


def test_ensure_refuses_groups_that_are_not_in_the_cluster(world):
    with pytest.raises(InvalidRequestError, match="instance groups gpus are not in cluster"):
        ensure(world, FeatureChange(change="enable", instanceGroups=["gpus"]))


def test_autoscaling_enabled_outside_instantstart_is_not_taken_over(world):
    world.iam.create_role(
        ROLE, {}, feature_tags(DEPLOYMENT, TAG, Feature.KARPENTER), "arn:aws:iam::123456789012:policy/boundary"
    )
    world.hyperpod.update_settings(HYPERPOD_NAME, {"ClusterRole": "arn:aws:iam::123456789012:role/theirs"})
    world.hyperpod.update_settings(HYPERPOD_NAME, {"AutoScaling": {"Mode": "Enable", "AutoScalerType": "Karpenter"}})
    with pytest.raises(ForeignResourceError, match="enabled outside InstantStart"):
        ensure(world)


def test_a_role_of_the_same_name_that_is_not_ours_is_refused(world):
    world.iam.create_role(ROLE, {}, {}, "arn:aws:iam::123456789012:policy/boundary")
    with pytest.raises(ForeignResourceError, match=f"IAM role {ROLE} exists"):
        ensure(world)


def test_node_class_objects_without_our_labels_are_refused(world):
    world.enable(Feature.KARPENTER, ENABLE)
    world.kubernetes_objects[NODE_POOL]["metadata"]["labels"] = {}
    with pytest.raises(ForeignResourceError, match="NodePool instantstart already exist"):
        ensure(world)


def test_failed_autoscaling_is_reported_with_its_failure_message(world):
    ensure(world)
    ensure(world)
    settings = world.hyperpod.clusters[HYPERPOD_NAME].settings
    settings["AutoScaling"].update({"Status": "Failed", "FailureMessage": "no capacity"})
    with pytest.raises(DependencyFailedError, match="failed: no capacity"):
        ensure(world)


def test_a_half_built_chain_is_partial_and_finished_by_enabling_again(world):
    world.iam.create_role(
        ROLE, {}, feature_tags(DEPLOYMENT, TAG, Feature.KARPENTER), "arn:aws:iam::123456789012:policy/boundary"
    )
    state = world.state(Feature.KARPENTER)
    assert (state.state, state.resources) == ("partial", [f"role {ROLE}"])
    assert state.message == "Half-built: enable again to finish it, or disable it."
    assert world.enable(Feature.KARPENTER, ENABLE).done
    assert world.state(Feature.KARPENTER).state == "enabled"


def test_remove_deletes_the_objects_turns_autoscaling_off_and_deletes_the_role_last(world):
    assert world.enable(Feature.KARPENTER, ENABLE).done
    assert remove(world) is False
    assert world.kubernetes_objects == {}
    assert world.hyperpod.clusters[HYPERPOD_NAME].settings["AutoScaling"]["Mode"] == "Disable"
    assert world.iam.find_role(ROLE) is not None, "HyperPod may use the role until autoscaling is off"
    assert remove(world) is False
    world.settle()
    assert remove(world) is True
    assert world.iam.find_role(ROLE) is None
    assert world.state(Feature.KARPENTER).state == "disabled"


def test_a_half_built_chain_is_removed_by_disabling(world):
    world.iam.create_role(
        ROLE, {}, feature_tags(DEPLOYMENT, TAG, Feature.KARPENTER), "arn:aws:iam::123456789012:policy/boundary"
    )
    assert world.disable(Feature.KARPENTER).done
    assert world.iam.find_role(ROLE) is None


def test_remove_leaves_a_role_that_is_not_ours(world):
    world.iam.create_role(ROLE, {}, {}, "arn:aws:iam::123456789012:policy/boundary")
    assert remove(world) is True
    assert world.iam.find_role(ROLE) is not None
