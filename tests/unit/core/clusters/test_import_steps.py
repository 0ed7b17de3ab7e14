"""The import workflow's steps, and the release of an imported cluster on delete, against in-memory fakes."""

import pytest

from controlplane.core.clusters.import_steps import ClusterImportSteps
from controlplane.core.naming import CLUSTER_TAG_KEY, JOB_WRITERS_GROUP, MANAGED_BY_KEY, VIEWERS_GROUP, ownership_tags
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.ports.eks import AddonIssue, ControlPlaneAccess
from controlplane.core.ports.hyperpod import HyperPodCluster
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.models.clusters import ClusterStatus, ImportedNetwork
from controlplane.models.errors import ForeignResourceError, InvalidRequestError
from controlplane.models.operations import OperationKind
from tests.fakes.account import ACCOUNT_ID
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.iam import InMemoryIamGateway
from tests.fakes.network import InMemoryNetworkGateway

CONTROL_PLANE_ROLE = "arn:aws:iam::123456789012:role/instantstart-kubernetes"
VIEW_ROLE = "arn:aws:iam::123456789012:role/instantstart-kubernetes-view"
JOBS_ROLE = "arn:aws:iam::123456789012:role/instantstart-kubernetes-jobs"
ACCESS = ControlPlaneAccess(CONTROL_PLANE_ROLE, VIEW_ROLE, JOBS_ROLE, JOB_WRITERS_GROUP, VIEWERS_GROUP)
ADDONS = ("eks-pod-identity-agent",)
DAEMONSET = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "nvidia", "namespace": "kube-system"}}
CLAIM = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "s3-claim", "namespace": "default"}}


@pytest.fixture
def network():
    return InMemoryNetworkGateway()


@pytest.fixture
def iam():
    return InMemoryIamGateway()


@pytest.fixture
def team(network, eks):
    """The team's own VPC (private subnets routed through a NAT gateway by a route table) and EKS cluster."""
    vpc = network.add_foreign_vpc("10.60.0.0/16")
    network.add_route_table(vpc.vpc_id, {"0.0.0.0/0": "igw-1"}, [], main=True)
    network.add_route_table(vpc.vpc_id, {"0.0.0.0/0": "nat-team"}, ["subnet-a", "subnet-b"])
    eks.add_cluster(
        "ml-platform",
        vpc_id=vpc.vpc_id,
        subnet_ids=("subnet-a", "subnet-b"),
        cluster_security_group_id="sg-cluster",
    )
    return vpc


@pytest.fixture
def steps(registry, network, eks, iam, hyperpod, kubernetes, clock):
    return ClusterImportSteps(
        registry, network, eks, iam, hyperpod, kubernetes, lambda region: [DAEMONSET], ADDONS, ACCESS, clock, DEPLOYMENT
    )


@pytest.fixture
def record(registry, make_record):
    created = make_record(
        clusterTag="team", eksClusterName="ml-platform", status=ClusterStatus.IMPORTING, imported=True
    )
    registry.create(created)
    return created


@pytest.fixture
def ctx(record):
    return workflow_input(OperationKind.IMPORT_CLUSTER, "op-1", record, ACCOUNT_ID)


def test_the_cluster_and_its_vpc_are_tagged_as_adopted_not_as_ours(steps, ctx, team, eks, network):
    steps.tag_imported_cluster(ctx)
    assert eks.find_cluster("ml-platform").tags == {CLUSTER_TAG_KEY: "team"}
    assert network.vpc(team.vpc_id).tags == {CLUSTER_TAG_KEY: "team"}
    assert MANAGED_BY_KEY not in network.vpc(team.vpc_id).tags


def test_a_cluster_registered_under_another_tag_is_refused_at_run_time(steps, ctx, team, eks):
    eks.tag_cluster(eks.find_cluster("ml-platform").arn, {CLUSTER_TAG_KEY: "someone"})
    with pytest.raises(ForeignResourceError, match="already registered as 'someone'"):
        steps.tag_imported_cluster(ctx)


def test_a_cluster_that_is_gone_or_not_active_stops_the_import(steps, ctx, team, eks):
    eks.add_cluster("ml-platform", status="UPDATING")
    with pytest.raises(InvalidRequestError, match="must exist and be ACTIVE"):
        steps.discover_cluster_network(ctx)


def test_discovery_records_the_vpc_security_group_and_the_nat_the_eks_subnets_route_through(steps, ctx, team, registry):
    assert steps.discover_cluster_network(ctx) == {
        "vpcId": team.vpc_id,
        "securityGroupId": "sg-cluster",
        "natGatewayId": "nat-team",
    }
    record = registry.find("team")
    assert record.network == ImportedNetwork(
        vpcId=team.vpc_id,
        vpcCidr="10.60.0.0/16",
        subnetIds=["subnet-a", "subnet-b"],
        securityGroupId="sg-cluster",
        natGatewayId="nat-team",
    )
    assert record.vpcCidr == "10.60.0.0/16"


def test_subnets_without_their_own_table_route_through_the_main_one(steps, ctx, team, network, registry):
    network.route_tables.clear()
    network.add_route_table(team.vpc_id, {"0.0.0.0/0": "nat-main"}, [], main=True)
    assert steps.discover_cluster_network(ctx)["natGatewayId"] == "nat-main"


def test_a_vpc_without_nat_egress_is_recorded_as_such(steps, ctx, team, network, registry):
    network.route_tables.clear()
    steps.discover_cluster_network(ctx)
    assert registry.find("team").network.natGatewayId is None


def test_a_bare_cluster_has_only_its_eks_stage(steps, ctx, team, registry):
    assert steps.discover_cluster_stages(ctx) == {"stagesDone": "eks"}
    record = registry.find("team")
    assert (record.stagesDone, record.adopted) == (["eks"], ["eks"])


def test_every_stage_the_cluster_has_is_recorded_done_and_adopted(
    steps, ctx, team, iam, eks, hyperpod, kubernetes, registry, record
):
    cluster = eks.find_cluster("ml-platform")
    iam.create_oidc_provider(cluster.oidc_issuer, {})
    eks.create_addon("ml-platform", "eks-pod-identity-agent", "v1", None, {})
    eks.set_addon_status("ml-platform", "eks-pod-identity-agent", "ACTIVE")
    kubernetes.apply(cluster, "us-west-2", [DAEMONSET, CLAIM])
    registry.save(record.model_copy(update={"hyperPodClusterName": "team-hp"}))
    hyperpod.clusters["team-hp"] = HyperPodCluster(
        name="team-hp", arn="arn:hp", status="InService", failure_message=None, groups=()
    )
    assert steps.discover_cluster_stages(ctx) == {"stagesDone": "eks, dependencies, hyperpod, storage"}
    assert registry.find("team").storageClaim == "default/s3-claim"


@pytest.mark.parametrize(("nodes", "adopted"), [([], True), ([KubernetesNode("n-1", True, True, {}, {}, {})], False)])
def test_an_addon_short_of_replicas_counts_as_installed_only_on_a_cluster_without_schedulable_nodes(
    team, iam, eks, kubernetes, registry, hyperpod, clock, ctx, nodes, adopted
):
    steps = ClusterImportSteps(
        registry,
        InMemoryNetworkGateway(),
        eks,
        iam,
        hyperpod,
        kubernetes,
        lambda region: [DAEMONSET],
        ("eks-pod-identity-agent", "cert-manager"),
        ACCESS,
        clock,
        DEPLOYMENT,
    )
    cluster = eks.find_cluster("ml-platform")
    iam.create_oidc_provider(cluster.oidc_issuer, {})
    eks.add_addon("ml-platform", "eks-pod-identity-agent")
    eks.add_addon("ml-platform", "cert-manager", "DEGRADED")
    eks.set_addon_status("ml-platform", "cert-manager", "DEGRADED", AddonIssue("InsufficientNumberOfReplicas", "0/1"))
    kubernetes.apply(cluster, "us-west-2", [DAEMONSET])
    kubernetes.api("ml-platform").nodes = nodes

    assert steps.discover_cluster_stages(ctx) == {"stagesDone": "eks, dependencies" if adopted else "eks"}


def test_a_hyperpod_cluster_named_like_ours_is_not_adopted_when_import_named_none(steps, ctx, team, hyperpod, registry):
    hyperpod.clusters["hp-cluster-team"] = HyperPodCluster(
        name="hp-cluster-team", arn="arn:hp", status="InService", failure_message=None, groups=()
    )
    assert steps.discover_cluster_stages(ctx) == {"stagesDone": "eks"}


def test_release_removes_only_what_the_pipeline_added_and_keeps_the_cluster(
    steps, team, eks, kubernetes, network, registry, record
):
    cluster = eks.find_cluster("ml-platform")
    importing = workflow_input(OperationKind.IMPORT_CLUSTER, "op-1", record, ACCOUNT_ID)
    steps.tag_imported_cluster(importing)
    steps.discover_cluster_network(importing)
    eks.create_access_entry("ml-platform", CONTROL_PLANE_ROLE, ownership_tags(DEPLOYMENT, "team"))
    eks.create_access_entry("ml-platform", VIEW_ROLE, ownership_tags(DEPLOYMENT, "team"))
    eks.create_addon("ml-platform", "eks-pod-identity-agent", "v1", None, ownership_tags(DEPLOYMENT, "team"))
    team_object = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "team", "namespace": "default"}}
    added_claim = {**CLAIM, "metadata": {"name": "data", "namespace": "default"}}
    kubernetes.apply(cluster, "us-west-2", [DAEMONSET, added_claim, team_object])
    registry.save(registry.find("team").model_copy(update={"storageClaim": "default/data", "adopted": ["eks"]}))
    deleting = workflow_input(OperationKind.DELETE_EKS_CLUSTER, "op-2", registry.find("team"), ACCOUNT_ID)
    released = steps.release_imported_cluster(deleting)
    assert released == {
        "released": "PersistentVolumeClaim/default/data, DaemonSet/kube-system/nvidia, add-on eks-pod-identity-agent, "
        "access entry (AmazonEKSClusterAdminPolicy), access entry (AmazonEKSViewPolicy, instantstart:viewers), "
        "cluster tag, vpc tag",
        "kept": "EKS cluster ml-platform",
    }
    assert list(kubernetes.api("ml-platform").objects) == ["ConfigMap/default/team"]
    assert eks.access_entries == {}
    assert eks.find_cluster("ml-platform").status == "ACTIVE"
    assert CLUSTER_TAG_KEY not in eks.find_cluster("ml-platform").tags
    assert network.vpc(team.vpc_id).tags == {}


def test_release_of_a_cluster_the_control_plane_created_does_nothing(steps, make_record):
    deleting = workflow_input(OperationKind.DELETE_EKS_CLUSTER, "op-2", make_record(), ACCOUNT_ID)
    assert steps.release_imported_cluster(deleting) == {"released": "nothing (the cluster was ours and is deleted)"}
