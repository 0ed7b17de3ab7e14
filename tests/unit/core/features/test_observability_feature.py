"""The observability feature delivers data: a Prometheus workspace of the cluster's own, ACTIVE before the add-on,
which is configured to write to it; disabling removes exactly the add-on, its role and that workspace; the feature's
state says the person brings Grafana, and where to point it."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from controlplane.core.naming import feature_tags, ownership_tags
from controlplane.models.errors import DependencyFailedError
from controlplane.models.features import Feature, FeatureChange
from controlplane.models.workflow import PollState
from tests.fakes.deployment import DEPLOYMENT
from tests.unit.core.features.world import EKS_NAME, REGION, TAG, FeatureWorld

ADDON = "amazon-sagemaker-hyperpod-observability"
ROLE = "instantstart-demo-observability"
ALIAS = "instantstart-demo-observability"


@pytest.fixture
def world() -> FeatureWorld:
    return FeatureWorld()


def ensure(world: FeatureWorld, first_attempt: bool = True) -> bool:
    ctx = world.workflow_input(Feature.OBSERVABILITY, FeatureChange(change="enable"))
    if not first_attempt:
        ctx = ctx.model_copy(update={"poll": PollState(done=False, attempts=1, waitSeconds=5)})
    return world.steps.ensure(Feature.OBSERVABILITY, ctx).done


def test_enabling_creates_the_cluster_s_workspace_and_installs_the_addon_only_once_it_is_active(world):
    assert ensure(world) is False
    (workspace,) = world.prometheus.workspaces(ALIAS)
    assert (workspace.status, workspace.tags) == ("CREATING", feature_tags(DEPLOYMENT, TAG, Feature.OBSERVABILITY))
    assert world.eks.find_addon(EKS_NAME, ADDON) is None, "no add-on before its workspace is ACTIVE"
    assert ensure(world, first_attempt=False) is False, "still CREATING"

    assert world.enable(Feature.OBSERVABILITY).done

    (workspace,) = world.prometheus.workspaces(ALIAS)
    call = world.eks.addon_requests[(EKS_NAME, ADDON)]
    assert json.loads(call.configuration) == {
        "ampWorkspace": {"prometheusEndpoint": workspace.endpoint.rstrip("/"), "arn": workspace.arn}
    }
    assert call.pod_identities == {"hyperpod-observability-operator-otel-collector": world.iam.find_role(ROLE).arn}


def test_the_enabled_feature_names_its_workspace_and_says_the_person_brings_grafana(world):
    assert world.enable(Feature.OBSERVABILITY).done

    state = world.state(Feature.OBSERVABILITY)

    (workspace,) = world.prometheus.workspaces(ALIAS)
    assert (state.enabled, state.state) == (True, "enabled")
    assert state.settings["prometheusWorkspace"] == workspace.workspace_id
    assert state.settings["prometheusEndpoint"] == workspace.endpoint
    assert state.settings["grafana"] == "bring your own"
    assert "Grafana is yours to bring" in state.message and workspace.endpoint in state.message
    assert f"service aps, Region {REGION}" in state.message
    assert f"Prometheus workspace {workspace.workspace_id}" in state.resources


def test_disabling_removes_the_addon_then_its_role_and_workspace_and_nothing_else(world):
    assert world.enable(Feature.OBSERVABILITY).done
    someone_elses = world.prometheus.create_workspace(ALIAS, ownership_tags(DEPLOYMENT, "other"))

    assert world.disable(Feature.OBSERVABILITY).done

    assert world.eks.find_addon(EKS_NAME, ADDON) is None
    assert world.iam.find_role(ROLE) is None
    assert [w.workspace_id for w in world.prometheus.workspaces(ALIAS)] == [someone_elses.workspace_id]
    assert world.state(Feature.OBSERVABILITY).state == "disabled"


def test_a_workspace_left_by_an_interrupted_enable_is_partial_and_enabling_again_finishes_it(world):
    assert ensure(world) is False
    world.settle()

    assert world.state(Feature.OBSERVABILITY).state == "partial"
    assert world.enable(Feature.OBSERVABILITY).done
    assert len(world.prometheus.workspaces(ALIAS)) == 1


def test_a_workspace_that_failed_to_create_is_replaced_once_then_reported(world):
    created = world.prometheus.create_workspace(ALIAS, feature_tags(DEPLOYMENT, TAG, Feature.OBSERVABILITY))
    failed = replace(created, status="CREATION_FAILED")
    world.prometheus.workspaces_by_id[failed.workspace_id] = failed

    assert ensure(world) is False
    assert world.prometheus.workspaces_by_id[failed.workspace_id].status == "DELETING"
    world.prometheus.workspaces_by_id[failed.workspace_id] = failed
    with pytest.raises(DependencyFailedError, match=f"{failed.workspace_id} failed to create"):
        ensure(world, first_attempt=False)
