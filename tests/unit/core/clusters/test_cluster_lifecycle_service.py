"""Creating, importing and deleting clusters: validated against live state before anything is registered,
registered and started together, planned without side effects."""

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.naming import CLUSTER_TAG_KEY
from controlplane.core.ports.hyperpod import HyperPodCluster
from controlplane.models.clusters import ClusterStatus, CreateEksClusterRequest, ImportClusterRequest
from controlplane.models.errors import (
    CidrConflictError,
    ClusterExistsError,
    ClusterNotReadyError,
    ConfirmationRequiredError,
    InvalidRequestError,
    PreflightFailedError,
    UnknownRegionError,
)
from controlplane.models.hyperpod import CreateHyperPodRequest
from controlplane.models.operations import OperationKind
from controlplane.models.pipeline import CreateClusterRequest
from tests.fakes.account import ACCOUNT_ID

ADMIN = Actor("alice", Role.ADMIN)
OTHER_ADMIN = Actor("bob", Role.ADMIN)
EKS = CreateEksClusterRequest(clusterTag="demo", region="us-west-2")
GROUP = CreateHyperPodRequest(availabilityZone="us-west-2c", instanceType="ml.g6.4xlarge", instanceCount=1)
PIPELINE = CreateClusterRequest(clusterTag="demo", region="us-west-2", hyperpod=GROUP)
IMPORT = ImportClusterRequest(clusterTag="team", region="us-west-2", eksClusterName="ml-platform")


def nothing_happened(registry, launcher):
    return registry.items == {} and launcher.started == []


# --- stage 1 ---------------------------------------------------------------------------------------


def test_the_stage_one_plan_changes_nothing(lifecycle, registry, launcher):
    plan = lifecycle.plan_create_eks(EKS)
    assert plan.dryRun and plan.actions[0].resource == "AWS::EC2::VPC"
    assert nothing_happened(registry, launcher)


def test_creating_eks_registers_the_cluster_and_starts_stage_one_with_its_network(lifecycle, registry, launcher):
    operation = lifecycle.create_eks(EKS, ADMIN)
    record = registry.find("demo")
    assert (record.status, record.eksClusterName, record.accountId, record.createdBy) == (
        ClusterStatus.CREATING,
        "eks-cluster-demo",
        ACCOUNT_ID,
        "alice",
    )
    assert record.activeOperationId == operation.operationId
    ((kind, _, payload),) = launcher.started
    assert kind == OperationKind.CREATE_EKS_CLUSTER
    assert (payload["kubernetesVersion"], payload["network"]["vpcCidr"]) == ("1.34", record.vpcCidr)


@pytest.mark.parametrize(
    ("request_", "error"),
    [
        (CreateEksClusterRequest(clusterTag="demo", region="ap-nowhere-1"), UnknownRegionError),
        (CreateEksClusterRequest(clusterTag="demo", region="us-west-2", vpcCidr="10.50.0.0/16"), CidrConflictError),
    ],
)
def test_a_bad_stage_one_request_is_refused_before_anything_is_registered(
    lifecycle, registry, launcher, account, request_, error
):
    account.vpcs["vpc-team"] = "10.50.0.0/16"
    with pytest.raises(error):
        lifecycle.create_eks(request_, ADMIN)
    assert nothing_happened(registry, launcher)


def test_a_taken_tag_is_refused(lifecycle, registry, make_record):
    registry.create(make_record())
    with pytest.raises(ClusterExistsError, match="pick another clusterTag or delete it first"):
        lifecycle.plan_create_eks(EKS)


def test_a_workflow_that_cannot_start_frees_the_tag_again(lifecycle, registry, launcher):
    launcher.fail_with = RuntimeError("throttled")
    with pytest.raises(RuntimeError):
        lifecycle.create_eks(EKS, ADMIN)
    assert registry.find("demo") is None


# --- the one-request pipeline ------------------------------------------------------------------


def test_the_pipeline_starts_with_every_stages_plan_resolved(lifecycle, launcher):
    lifecycle.create_cluster(PIPELINE, ADMIN)
    ((kind, _, payload),) = launcher.started
    assert kind == OperationKind.CREATE_CLUSTER
    assert payload["hyperpod"]["availabilityZone"] == "us-west-2c"
    assert payload["hyperpod"]["deepHealthChecks"] is True
    assert payload["storage"]["bucketName"] == f"instantstart-demo-{ACCOUNT_ID}-us-west-2"
    assert payload["features"]["fsxCsiDriver"]["change"] == "none"


def test_the_pipeline_plan_lists_every_stage(lifecycle, registry, launcher):
    resources = [action.resource for action in lifecycle.plan_pipeline(PIPELINE).actions]
    assert resources[0] == "AWS::EC2::VPC"
    assert "EKS add-ons and HyperPod dependencies" in resources
    assert "AWS::SageMaker::Cluster" in resources
    assert resources[-1] == "Kubernetes PersistentVolumeClaim"
    assert nothing_happened(registry, launcher)


def test_a_pipeline_whose_later_stage_is_invalid_creates_nothing(lifecycle, registry, launcher, account):
    account.offered["g6.4xlarge"] = ["us-west-2a"]
    with pytest.raises(InvalidRequestError, match="not offered in us-west-2c"):
        lifecycle.create_cluster(PIPELINE, ADMIN)
    assert nothing_happened(registry, launcher)


# --- import ------------------------------------------------------------------------------------


def test_importing_registers_the_adopted_cluster_and_starts_the_import(lifecycle, registry, launcher, eks):
    eks.add_cluster("ml-platform", version="1.32")
    assert [action.action for action in lifecycle.plan_import(IMPORT).actions] == ["keep", "keep", "create"]
    assert registry.items == {}
    lifecycle.import_cluster(IMPORT, ADMIN)
    record = registry.find("team")
    assert (record.status, record.imported, record.eksClusterName, record.kubernetesVersion) == (
        ClusterStatus.IMPORTING,
        True,
        "ml-platform",
        "1.32",
    )
    ((kind, _, payload),) = launcher.started
    assert (kind, payload["imported"], payload["hyperPodClusterName"]) == (
        OperationKind.IMPORT_CLUSTER,
        True,
        "hp-cluster-team",
    )


def test_importing_with_a_hyperpod_cluster_keeps_its_name(lifecycle, registry, launcher, eks, hyperpod):
    cluster = eks.add_cluster("ml-platform")
    hyperpod.clusters["team-hp"] = HyperPodCluster(
        name="team-hp", arn="arn:hp", status="InService", failure_message=None, groups=(), eks_cluster_arn=cluster.arn
    )
    request = IMPORT.model_copy(update={"hyperPodClusterName": "team-hp"})
    assert ("keep", "AWS::SageMaker::Cluster") in {
        (a.action, a.resource) for a in lifecycle.plan_import(request).actions
    }
    lifecycle.import_cluster(request, ADMIN)
    assert registry.find("team").hyperPodClusterName == "team-hp"
    assert launcher.started[0][2]["hyperPodClusterName"] == "team-hp"


@pytest.mark.parametrize(
    ("facts", "error", "fragment"),
    [
        ({"status": "UPDATING"}, ClusterNotReadyError, "import it once it is ACTIVE"),
        ({"authentication_mode": "CONFIG_MAP"}, InvalidRequestError, "API_AND_CONFIG_MAP"),
        ({"tags": {CLUSTER_TAG_KEY: "earlier"}}, ClusterExistsError, "already registered as 'earlier'"),
    ],
)
def test_a_cluster_that_cannot_be_adopted_is_refused_before_anything_changes(
    lifecycle, registry, launcher, eks, facts, error, fragment
):
    eks.add_cluster("ml-platform", **facts)
    with pytest.raises(error, match=fragment):
        lifecycle.import_cluster(IMPORT, ADMIN)
    assert nothing_happened(registry, launcher)


@pytest.mark.parametrize(
    ("endpoint", "fragment"),
    [
        ({"endpoint_public_access": False, "public_access_cidrs": ()}, "endpointPublicAccess false"),
        ({"public_access_cidrs": ("203.0.113.0/24", "198.51.100.7/32")}, "203.0.113.0/24, 198.51.100.7/32"),
    ],
    ids=["private-only", "other-cidrs"],
)
def test_an_endpoint_the_control_plane_cannot_reach_fails_pre_flight_and_the_plan_lists_it(
    lifecycle, registry, launcher, eks, endpoint, fragment
):
    eks.add_cluster("ml-platform", **endpoint)

    (check,) = lifecycle.plan_import(IMPORT).checks
    with pytest.raises(PreflightFailedError) as refused:
        lifecycle.import_cluster(IMPORT, ADMIN)

    assert (check.status, fragment in (check.fix or "")) == ("fail", True)
    assert fragment in refused.value.message and "publicAccessCidrs=0.0.0.0/0" in refused.value.message
    assert "need None" not in refused.value.message
    assert nothing_happened(registry, launcher)


def test_a_public_endpoint_open_to_every_address_passes_pre_flight(lifecycle, eks):
    eks.add_cluster("ml-platform")

    assert [(check.status, check.fix) for check in lifecycle.plan_import(IMPORT).checks] == [("pass", None)]


def test_a_cluster_registered_under_another_tag_is_refused(lifecycle, registry, eks, make_record):
    eks.add_cluster("ml-platform")
    registry.create(make_record(clusterTag="first", eksClusterName="ml-platform"))
    with pytest.raises(ClusterExistsError, match="already registered as 'first'"):
        lifecycle.plan_import(IMPORT)


def test_a_missing_eks_cluster_or_a_hyperpod_cluster_on_another_eks_cluster_is_refused(lifecycle, eks, hyperpod):
    with pytest.raises(InvalidRequestError, match="No EKS cluster named 'ml-platform'"):
        lifecycle.plan_import(IMPORT)
    eks.add_cluster("ml-platform")
    request = IMPORT.model_copy(update={"hyperPodClusterName": "team-hp"})
    with pytest.raises(InvalidRequestError, match="No HyperPod cluster named 'team-hp'"):
        lifecycle.plan_import(request)
    hyperpod.clusters["team-hp"] = HyperPodCluster(
        name="team-hp", arn="arn:hp", status="InService", failure_message=None, groups=(), eks_cluster_arn="arn:other"
    )
    with pytest.raises(InvalidRequestError, match="orchestrated by arn:other"):
        lifecycle.plan_import(request)


# --- delete ------------------------------------------------------------------------------------


def test_delete_is_planned_with_a_token_and_started_only_with_it(lifecycle, registry, launcher, make_record):
    registry.create(make_record("eks", "dependencies", "hyperpod"))
    plan = lifecycle.plan_delete("demo", ADMIN)
    assert plan.confirmationToken and launcher.started == []
    assert plan.actions[0].name == "hp-cluster-demo"
    operation = lifecycle.delete("demo", plan.confirmationToken, ADMIN)
    record = registry.find("demo")
    assert (record.status, record.activeOperationId) == (ClusterStatus.DELETING, operation.operationId)
    assert launcher.started[0][0] == OperationKind.DELETE_EKS_CLUSTER


def test_a_delete_token_is_single_use_and_bound_to_the_caller(lifecycle, registry, launcher, make_record):
    registry.create(make_record("eks"))
    token = lifecycle.plan_delete("demo", ADMIN).confirmationToken
    with pytest.raises(ConfirmationRequiredError):
        lifecycle.delete("demo", token, OTHER_ADMIN)
    assert launcher.started == []
    assert registry.find("demo").status == ClusterStatus.ACTIVE
    lifecycle.delete("demo", token, ADMIN)
    with pytest.raises(ConfirmationRequiredError):
        lifecycle.delete("demo", token, ADMIN)
    assert len(launcher.started) == 1


def test_a_delete_token_expires(lifecycle, registry, clock, make_record):
    registry.create(make_record("eks"))
    token = lifecycle.plan_delete("demo", ADMIN).confirmationToken
    clock.sleep(11 * 60)
    with pytest.raises(ConfirmationRequiredError, match="expired"):
        lifecycle.delete("demo", token, ADMIN)
