"""The trainingOperator feature's jobs identity (role → ServiceAccount → pod identity association), closed both ways:
enabling builds it beside the operator's add-on, disabling removes exactly it, a half-built chain is finished or
removed."""

from __future__ import annotations

from typing import Any

import pytest

from controlplane.core.features import DISABLE_ORDER
from controlplane.core.features.job_identity import job_access
from controlplane.core.naming import feature_tags
from controlplane.models.errors import ForeignResourceError
from controlplane.models.features import Feature, FeatureChange
from controlplane.models.workflow import DeleteEksClusterInput
from tests.fakes.deployment import DEPLOYMENT
from tests.unit.core.features.world import ACCOUNT, EKS_NAME, REGION, TAG, WORKLOAD_BOUNDARY, FeatureWorld

ROLE = "instantstart-demo-training-jobs"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/{ROLE}"
ADDON = "amazon-sagemaker-hyperpod-training-operator"
SERVICE_ACCOUNT = "ServiceAccount/default/instantstart-jobs"
OPERATOR_IDENTITY = (EKS_NAME, "aws-hyperpod", "hp-training-operator-controller-manager")


@pytest.fixture
def world() -> FeatureWorld:
    return FeatureWorld()


def enabled(world: FeatureWorld) -> FeatureWorld:
    assert world.enable(Feature.TRAINING_OPERATOR).done
    return world


def foreign_service_account() -> dict[str, Any]:
    metadata = {"name": "instantstart-jobs", "namespace": "default"}
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}


def test_enabling_creates_the_jobs_role_within_the_workload_boundary_allowed_only_to_log_to_mlflow(world):
    enabled(world)
    stored = world.iam.roles[ROLE]
    assert stored.boundary_arn == WORKLOAD_BOUNDARY
    assert stored.role.tags == feature_tags(DEPLOYMENT, TAG, Feature.TRAINING_OPERATOR)
    assert stored.inline == {"mlflow-tracking": job_access(DEPLOYMENT, REGION, ACCOUNT)}
    (statement,) = stored.inline["mlflow-tracking"]["Statement"]
    assert statement["Action"] == ["sagemaker-mlflow:*"]
    assert statement["Resource"] == [f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:mlflow-tracking-server/*"]
    assert stored.role.attached_policy_arns == frozenset()


def test_the_jobs_role_trusts_pod_identity_for_one_service_account_of_this_cluster(world):
    enabled(world)
    (statement,) = world.iam.roles[ROLE].trust["Statement"]
    assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert statement["Action"] == ["sts:AssumeRole", "sts:TagSession"]
    assert statement["Condition"] == {
        "StringEquals": {
            "aws:SourceAccount": ACCOUNT,
            "aws:RequestTag/eks-cluster-name": EKS_NAME,
            "aws:RequestTag/kubernetes-service-account": "instantstart-jobs",
        },
        # The job namespace, and the teams' namespaces their preparation gives the same ServiceAccount.
        "StringLike": {"aws:RequestTag/kubernetes-namespace": ["default", "hyperpod-ns-*"]},
    }


def test_enabling_creates_the_service_account_and_its_pod_identity_association(world):
    enabled(world)
    labels = world.kubernetes_objects[SERVICE_ACCOUNT]["metadata"]["labels"]
    assert labels["instantstart.aws/feature"] == "trainingOperator"
    assert world.eks.pod_identities[(EKS_NAME, "default", "instantstart-jobs")] == ROLE_ARN


def test_the_feature_lists_the_jobs_chain_among_its_resources(world):
    state = enabled(world).state(Feature.TRAINING_OPERATOR)
    assert state.state == "enabled" and state.message is None
    assert state.resources == [
        f"add-on {ADDON}",
        f"role {ROLE}",
        "ServiceAccount default/instantstart-jobs",
        "pod identity association default/instantstart-jobs",
    ]
    assert state.settings["jobServiceAccount"] == "default/instantstart-jobs"
    assert state.settings["jobRoleArn"] == ROLE_ARN


def test_the_service_account_lives_in_the_namespace_of_the_storage_claim(world):
    world.register(storageClaim="training/s3-claim")
    enabled(world)
    assert "ServiceAccount/training/instantstart-jobs" in world.kubernetes_objects
    assert (EKS_NAME, "training", "instantstart-jobs") in world.eks.pod_identities
    condition = world.iam.roles[ROLE].trust["Statement"][0]["Condition"]["StringLike"]
    assert condition["aws:RequestTag/kubernetes-namespace"] == ["training", "hyperpod-ns-*"]


def test_disabling_removes_exactly_the_chain_and_the_addon(world):
    enabled(world)
    world.kubernetes_objects["ServiceAccount/default/someone-else"] = {"kind": "ServiceAccount"}
    assert world.disable(Feature.TRAINING_OPERATOR).done
    assert ROLE not in world.iam.roles
    assert SERVICE_ACCOUNT not in world.kubernetes_objects
    assert (EKS_NAME, "default", "instantstart-jobs") not in world.eks.pod_identities
    assert world.eks.find_addon(EKS_NAME, ADDON) is None
    # The operator's own identity belongs to the HyperPod stage; other objects are not the feature's.
    assert OPERATOR_IDENTITY in world.eks.pod_identities
    assert "ServiceAccount/default/someone-else" in world.kubernetes_objects
    state = world.state(Feature.TRAINING_OPERATOR)
    assert state.state == "disabled" and state.resources == []


def test_the_chain_goes_only_after_the_addon_is_gone(world):
    enabled(world)
    first = world.steps.remove(
        Feature.TRAINING_OPERATOR, world.workflow_input(Feature.TRAINING_OPERATOR, FeatureChange(change="disable"))
    )
    assert first.done is False
    assert ROLE in world.iam.roles, "kept while the add-on is deleting"


@pytest.mark.parametrize("missing", ["role", "service account", "association"])
def test_a_half_built_chain_is_partial_and_finished_by_enabling_again(world, missing):
    enabled(world)
    if missing == "role":
        world.iam.delete_role(ROLE)
    elif missing == "service account":
        del world.kubernetes_objects[SERVICE_ACCOUNT]
    else:
        del world.eks.pod_identities[(EKS_NAME, "default", "instantstart-jobs")]
    state = world.state(Feature.TRAINING_OPERATOR)
    assert state.state == "partial" and state.enabled is False
    assert state.message == "Half-built: enable again to finish it, or disable it."
    enabled(world)
    assert world.state(Feature.TRAINING_OPERATOR).state == "enabled"


def test_a_chain_without_its_addon_is_partial_and_removed_by_disabling(world):
    enabled(world)
    del world.eks.addons[(EKS_NAME, ADDON)]
    state = world.state(Feature.TRAINING_OPERATOR)
    assert state.state == "partial"
    assert f"role {ROLE}" in state.resources
    assert world.disable(Feature.TRAINING_OPERATOR).done
    assert ROLE not in world.iam.roles and SERVICE_ACCOUNT not in world.kubernetes_objects
    assert world.state(Feature.TRAINING_OPERATOR).state == "disabled"


def test_enabling_again_restores_a_changed_policy(world):
    enabled(world)
    world.iam.put_role_policy(ROLE, "mlflow-tracking", {"Version": "2012-10-17", "Statement": []})
    enabled(world)
    assert world.iam.roles[ROLE].inline["mlflow-tracking"] == job_access(DEPLOYMENT, REGION, ACCOUNT)


def test_a_service_account_of_the_name_that_is_not_ours_is_refused_and_kept(world):
    world.kubernetes_objects[SERVICE_ACCOUNT] = foreign_service_account()
    with pytest.raises(ForeignResourceError, match="ServiceAccount default/instantstart-jobs exists"):
        world.enable(Feature.TRAINING_OPERATOR)
    assert world.disable(Feature.TRAINING_OPERATOR).done
    assert SERVICE_ACCOUNT in world.kubernetes_objects


def test_an_association_with_another_role_is_refused_and_kept(world):
    other = f"arn:aws:iam::{ACCOUNT}:role/someone-elses"
    world.eks.pod_identities[(EKS_NAME, "default", "instantstart-jobs")] = other
    with pytest.raises(ForeignResourceError, match="already has a pod identity association"):
        world.enable(Feature.TRAINING_OPERATOR)
    assert world.disable(Feature.TRAINING_OPERATOR).done
    assert world.eks.pod_identities[(EKS_NAME, "default", "instantstart-jobs")] == other


def test_a_role_of_the_name_that_is_not_ours_is_refused_and_kept(world):
    world.iam.create_role(ROLE, {}, {}, WORKLOAD_BOUNDARY)
    with pytest.raises(ForeignResourceError, match=f"IAM role {ROLE} exists"):
        world.enable(Feature.TRAINING_OPERATOR)
    assert world.disable(Feature.TRAINING_OPERATOR).done
    assert ROLE in world.iam.roles


def test_deleting_the_cluster_deletes_the_jobs_role(world):
    enabled(world)
    ctx = DeleteEksClusterInput(
        operationId="op-2",
        clusterTag=TAG,
        incarnation="inc-demo",
        region=REGION,
        accountId=ACCOUNT,
        eksClusterName=EKS_NAME,
        hyperPodClusterName="hp-cluster-demo",
        imported=False,
    )
    world.steps.delete_identities(ctx, DISABLE_ORDER)
    assert ROLE not in world.iam.roles
