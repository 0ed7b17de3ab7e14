"""The workflow's entry points into the features: poll state, the cluster they read, cluster teardown."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from controlplane.core.features import DISABLE_ORDER
from controlplane.core.naming import feature_tags
from controlplane.models.errors import WaitTimeoutError
from controlplane.models.features import Feature, FeatureChange
from controlplane.models.workflow import PollState
from tests.fakes.deployment import DEPLOYMENT
from tests.unit.core.features.world import ACCOUNT, HYPERPOD_NAME, POLL, REGION, TAG, FeatureWorld

ENABLE = FeatureChange(change="enable")


@pytest.fixture
def world() -> FeatureWorld:
    return FeatureWorld()


def test_a_step_that_has_not_settled_asks_to_be_polled_again(world):
    state = world.steps.ensure(Feature.CERT_MANAGER, world.workflow_input(Feature.CERT_MANAGER, ENABLE))
    assert state == PollState(
        done=False, attempts=1, waitSeconds=POLL.first_wait_seconds, status="settling", startedAt=world.clock.now()
    )


def test_a_settled_step_says_what_it_reached(world):
    world.install_addon("cert-manager", tags=feature_tags(DEPLOYMENT, TAG, Feature.CERT_MANAGER))
    ctx = world.workflow_input(Feature.CERT_MANAGER, ENABLE)
    assert world.steps.ensure(Feature.CERT_MANAGER, ctx).status == "enabled"
    assert world.steps.remove(Feature.KUBERAY_OPERATOR, ctx).status == "removed"


def test_each_poll_counts_backs_off_and_times_out_at_the_deadline(world):
    ctx = world.workflow_input(Feature.CERT_MANAGER, ENABLE)
    started = world.clock.now()
    polled = ctx.model_copy(update={"poll": PollState(done=False, attempts=3, waitSeconds=5, startedAt=started)})
    world.clock.sleep(20 * 60)
    state = world.steps.ensure(Feature.CERT_MANAGER, polled)
    assert (state.attempts, state.waitSeconds, state.startedAt) == (4, POLL.max_wait_seconds, started)
    world.clock.sleep(10 * 60)
    with pytest.raises(WaitTimeoutError, match=r"after waiting 30 min .* certManager to be enabled; its status is"):
        world.steps.ensure(Feature.CERT_MANAGER, polled)


def test_a_step_reads_an_imported_clusters_own_hyperpod_name(world):
    """Features on an imported cluster whose HyperPod cluster is not hp-cluster-<tag>."""
    del world.hyperpod.clusters[HYPERPOD_NAME]
    world.add_hyperpod("their-hyperpod")
    ctx = world.workflow_input(Feature.TIERED_STORAGE, ENABLE, hyperPodClusterName="their-hyperpod", imported=True)
    world.steps.ensure(Feature.TIERED_STORAGE, ctx)
    assert world.hyperpod.clusters["their-hyperpod"].settings["TieredStorageConfig"] == {"Mode": "Enable"}


def test_a_step_input_without_an_account_id_is_refused(world):
    with pytest.raises(ValidationError, match="accountId"):
        world.workflow_input(Feature.CERT_MANAGER, ENABLE, accountId=None)


def test_an_ensure_step_input_without_feature_changes_is_refused(world):
    with pytest.raises(ValidationError, match="features"):
        world.workflow_input(Feature.CERT_MANAGER, ENABLE, features=None)


def test_cluster_deletion_removes_what_every_feature_created_outside_the_clusters(world):
    for feature in (Feature.FSX_CSI_DRIVER, Feature.TIERED_STORAGE, Feature.INFERENCE_OPERATOR, Feature.KARPENTER):
        world.enable(feature, FeatureChange(change="enable", instanceGroups=["workers"]))
    world.eks.clusters.clear()
    world.hyperpod.clusters.clear()
    result = world.steps.delete_identities(world.workflow_input(Feature.CERT_MANAGER, ENABLE), DISABLE_ORDER)
    assert result == {"released": ", ".join(feature.value for feature in DISABLE_ORDER)}
    assert world.iam.roles == {}
    assert world.iam.policies == {}
    assert f"hyperpod-tls-{TAG}-{ACCOUNT}-{REGION}" not in world.buckets.buckets


def test_cluster_deletion_keeps_roles_that_are_not_ours(world):
    world.iam.create_role("instantstart-demo-observability", {}, {}, "arn:aws:iam::123456789012:policy/boundary")
    world.steps.delete_identities(world.workflow_input(Feature.CERT_MANAGER, ENABLE), DISABLE_ORDER)
    assert "instantstart-demo-observability" in world.iam.roles
