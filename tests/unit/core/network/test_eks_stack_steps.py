"""Stage 1 steps against in-memory EC2, IAM, EKS and Kubernetes: observe, create only what is missing, adopt
only what is ours, and treat gone as done on delete."""

import re
from dataclasses import replace

import pytest

from controlplane.core.naming import JOB_WRITERS_GROUP, VIEWERS_GROUP, Deployment, ownership_tags
from controlplane.core.network.eks_stack import EksStackService
from controlplane.core.network.plan import plan_network
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.ports.eks import ControlPlaneAccess
from controlplane.models.errors import (
    ForeignResourceError,
    InvalidRequestError,
    ResourceNotReadyError,
    WaitTimeoutError,
)
from controlplane.models.operations import OperationKind
from controlplane.models.workflow import PollState
from tests.fakes.account import ACCOUNT_ID, InMemoryAccountGateway
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.iam import InMemoryIamGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.network import InMemoryNetworkGateway

CONTROL_PLANE_ROLE = "arn:aws:iam::123456789012:role/instantstart-kubernetes"
VIEW_ROLE = "arn:aws:iam::123456789012:role/instantstart-kubernetes-view"
JOBS_ROLE = "arn:aws:iam::123456789012:role/instantstart-kubernetes-jobs"
SERVICE_BOUNDARY = "arn:aws:iam::123456789012:policy/service-boundary"
STAGE_ONE = (
    "ensure_vpc",
    "ensure_subnets",
    "ensure_internet_gateway",
    "ensure_nat_gateway",
    "ensure_route_tables",
    "ensure_s3_endpoint",
    "ensure_security_group",
    "ensure_cluster_role",
    "create_eks_cluster",
)


@pytest.fixture
def network():
    return InMemoryNetworkGateway()


@pytest.fixture
def iam():
    return InMemoryIamGateway()


@pytest.fixture
def stack(network, iam, eks, clock, kubernetes):
    poll = Poller(PollSettings(first_wait_seconds=5, max_wait_seconds=5), clock)
    access = ControlPlaneAccess(CONTROL_PLANE_ROLE, VIEW_ROLE, JOBS_ROLE, JOB_WRITERS_GROUP, VIEWERS_GROUP)
    return EksStackService(network, iam, eks, kubernetes, access, poll, SERVICE_BOUNDARY, DEPLOYMENT)


@pytest.fixture
def ctx(make_record):
    zones = InMemoryAccountGateway().availability_zones("us-west-2")
    network = plan_network({}, None, zones)
    return workflow_input(
        OperationKind.CREATE_EKS_CLUSTER, "op-1", make_record(), ACCOUNT_ID, kubernetesVersion="1.33", network=network
    )


@pytest.fixture
def deleting(make_record):
    return workflow_input(OperationKind.DELETE_EKS_CLUSTER, "op-2", make_record(), ACCOUNT_ID)


def build(stack, ctx):
    return {step: getattr(stack, step)(ctx) for step in STAGE_ONE}


def test_the_network_and_cluster_are_created_once_and_found_on_a_rerun(stack, ctx, network, eks):
    first = build(stack, ctx)
    assert (first["ensure_vpc"]["action"], first["create_eks_cluster"]["action"]) == ("created", "created")
    counts = (len(network.vpcs), len(network.subnets), len(network.nat_gateways), len(network.route_tables))
    again = build(stack, ctx)
    assert (again["ensure_vpc"]["action"], again["create_eks_cluster"]["action"]) == ("found", "found")
    assert again["ensure_subnets"] == first["ensure_subnets"]
    assert (len(network.vpcs), len(network.subnets), len(network.nat_gateways), len(network.route_tables)) == counts
    assert counts == (1, 4, 1, 2)


def test_subnets_follow_the_plan_and_the_cluster_uses_the_private_ones(stack, ctx, network, eks):
    build(stack, ctx)
    subnets = network.find_subnets("demo")
    assert {key: (s.cidr, s.availability_zone) for key, s in subnets.items()} == {
        f"{s.role}-{'ab'[s.index]}": (s.cidr, s.availabilityZone) for s in ctx.network.subnets
    }
    cluster = eks.find_cluster("eks-cluster-demo")
    assert set(cluster.subnet_ids) == {subnets["private-a"].subnet_id, subnets["private-b"].subnet_id}
    assert (cluster.version, cluster.security_group_ids) == ("1.33", (network.find_security_group("demo"),))


def test_public_subnets_route_to_the_internet_gateway_and_private_ones_to_the_nat_gateway(stack, ctx, network):
    build(stack, ctx)
    public, private = network.find_route_table("demo", "public"), network.find_route_table("demo", "private")
    subnets = network.find_subnets("demo")
    assert public.routes["0.0.0.0/0"] == network.find_internet_gateway("demo").gateway_id
    assert private.routes["0.0.0.0/0"] == network.find_nat_gateway("demo").gateway_id
    assert private.subnet_ids == {subnets["private-a"].subnet_id, subnets["private-b"].subnet_id}


def test_route_tables_wait_until_the_nat_gateway_is_available(stack, ctx, network):
    network.nat_state = "pending"
    for step in STAGE_ONE[:4]:
        getattr(stack, step)(ctx)
    with pytest.raises(ResourceNotReadyError, match="pending"):
        stack.ensure_route_tables(ctx)
    network.set_nat_state(network.find_nat_gateway("demo").gateway_id, "available")
    assert set(stack.ensure_route_tables(ctx)) == {"publicRouteTableId", "privateRouteTableId"}


def test_steps_that_need_an_earlier_one_say_which(stack, ctx):
    with pytest.raises(ResourceNotReadyError, match="'Ensure VPC' must run first"):
        stack.ensure_subnets(ctx)
    stack.ensure_vpc(ctx)
    with pytest.raises(ResourceNotReadyError, match="'Ensure Subnets' must run first"):
        stack.ensure_nat_gateway(ctx)


def test_the_cluster_role_gets_the_eks_policy_and_a_foreign_role_of_that_name_is_refused(stack, ctx, iam):
    stack.ensure_cluster_role(ctx)
    policy = "arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"
    assert policy in iam.find_role("instantstart-demo-eks-cluster").attached_policy_arns
    assert iam.roles["instantstart-demo-eks-cluster"].boundary_arn == SERVICE_BOUNDARY
    iam.roles.clear()
    iam.create_role("instantstart-demo-eks-cluster", {}, {"owner": "someone"}, SERVICE_BOUNDARY)
    with pytest.raises(ForeignResourceError):
        stack.ensure_cluster_role(ctx)


def test_an_eks_cluster_of_that_name_that_is_not_ours_is_refused(stack, ctx, eks):
    eks.add_cluster("eks-cluster-demo")
    with pytest.raises(ForeignResourceError, match="import it instead"):
        stack.create_eks_cluster(ctx)


def test_the_eks_cluster_is_polled_until_active_within_its_deadline(stack, ctx, eks, clock):
    with pytest.raises(ResourceNotReadyError):
        stack.check_eks_cluster(ctx)
    build(stack, ctx)
    first = stack.check_eks_cluster(ctx)
    assert first == PollState(done=False, attempts=1, waitSeconds=5, status="CREATING", startedAt=clock.now())
    polled = ctx.model_copy(update={"poll": first})
    clock.sleep(30 * 60)
    with pytest.raises(
        WaitTimeoutError, match=r"waiting 30 min .* eks-cluster-demo to be ACTIVE; its status is CREATING"
    ):
        stack.check_eks_cluster(polled)
    eks.activate("eks-cluster-demo")
    assert stack.check_eks_cluster(polled).done


def test_the_eks_cluster_is_checked_again_when_a_control_plane_is_usually_active_then_every_few_seconds(
    network, iam, eks, clock, kubernetes, ctx
):
    """EKS takes about 10 minutes: a back-off from the start noticed its readiness 15 s late on average, after 24
    checks; checked again at 8 minutes, then every 5 s, it is noticed within 5 s."""
    poll = Poller(PollSettings(first_wait_seconds=5, max_wait_seconds=7200), clock)
    access = ControlPlaneAccess(CONTROL_PLANE_ROLE, VIEW_ROLE, JOBS_ROLE, JOB_WRITERS_GROUP, VIEWERS_GROUP)
    stack = EksStackService(network, iam, eks, kubernetes, access, poll, SERVICE_BOUNDARY, DEPLOYMENT)
    build(stack, ctx)

    first = stack.check_eks_cluster(ctx)
    clock.sleep(first.waitSeconds)
    second = stack.check_eks_cluster(ctx.model_copy(update={"poll": first}))

    assert (first.waitSeconds, second.waitSeconds) == (8 * 60, 5)


def test_a_failed_eks_cluster_fails_the_poll(stack, ctx, eks):
    build(stack, ctx)
    eks.add_cluster("eks-cluster-demo", status="FAILED")
    with pytest.raises(InvalidRequestError, match="failed to create"):
        stack.check_eks_cluster(ctx)


def test_the_steps_get_cluster_admin_the_api_view_and_the_viewers_group_and_its_jobs_role_the_job_writers_group(
    stack, ctx, eks, kubernetes
):
    eks.add_cluster("eks-cluster-demo")
    stack.ensure_access_entry(ctx)
    stack.ensure_access_entry(ctx)
    policies = {
        principal: [policy.rsplit("/", 1)[-1] for policy in entry.policies]
        for (_, principal), entry in eks.access_entries.items()
    }
    assert policies == {
        CONTROL_PLANE_ROLE: ["AmazonEKSClusterAdminPolicy"],
        VIEW_ROLE: ["AmazonEKSViewPolicy"],
        JOBS_ROLE: [],
    }
    assert eks.access_entries[("eks-cluster-demo", JOBS_ROLE)].groups == (JOB_WRITERS_GROUP,)
    assert eks.access_entries[("eks-cluster-demo", VIEW_ROLE)].groups == (VIEWERS_GROUP,)
    assert list(kubernetes.api("eks-cluster-demo").objects) == [
        "ClusterRole/instantstart-job-writer",
        "ClusterRoleBinding/instantstart-job-writer",
        "ClusterRole/instantstart-model-server-writer",
        "ClusterRoleBinding/instantstart-model-server-writer",
        "ClusterRole/instantstart-view-reader",
        "ClusterRoleBinding/instantstart-view-reader",
        "Role/default/instantstart-secret-reader",
        "RoleBinding/default/instantstart-secret-reader",
    ]
    assert all(entry.tags == ownership_tags(DEPLOYMENT, "demo") for entry in eks.access_entries.values())
    assert stack.verify_kubernetes_api(ctx) == {"serverVersion": "v1.34.1-eks"}


def test_a_view_entry_made_before_the_viewers_group_gets_it_and_keeps_its_other_groups(stack, ctx, eks):
    eks.add_cluster("eks-cluster-demo")
    eks.create_access_entry("eks-cluster-demo", VIEW_ROLE, ownership_tags(DEPLOYMENT, "demo"), ("team:readers",))
    stack.ensure_access_entry(ctx)
    stack.ensure_access_entry(ctx)
    assert eks.access_entries[("eks-cluster-demo", VIEW_ROLE)].groups == ("team:readers", VIEWERS_GROUP)


def test_delete_removes_the_cluster_role_and_network_and_then_finds_nothing_left(stack, ctx, deleting, network, eks):
    build(stack, ctx)
    assert stack.delete_eks_cluster(deleting)["action"] == "deleting"
    assert eks.find_cluster("eks-cluster-demo").status == "DELETING"
    eks.clusters.clear()
    assert stack.check_eks_cluster_deleted(deleting).status == "DELETED"
    assert stack.delete_cluster_role(deleting)["action"] == "deleted"
    released = stack.release_nat_gateway(deleting)
    assert (released.done, network.find_s3_endpoint("demo")) == (False, None)
    network.set_nat_state(network.find_nat_gateway("demo").gateway_id, "deleted")
    assert stack.release_nat_gateway(deleting).status == "released"
    deleted = stack.delete_network(deleting)["deleted"]
    assert deleted.startswith("elastic-ip, internet-gateway, subnet") and deleted.endswith("security-group, vpc")
    assert (network.vpcs, network.subnets, network.route_tables, network.security_groups) == ({}, {}, {}, {})
    assert stack.delete_network(deleting) == {"deleted": "nothing left"}
    assert stack.delete_eks_cluster(deleting)["action"] == "absent"


def test_delete_keeps_an_imported_cluster_and_a_role_that_is_not_ours(stack, make_record, eks, iam):
    imported = workflow_input(
        OperationKind.DELETE_EKS_CLUSTER, "op-2", make_record(imported=True, eksClusterName="team"), ACCOUNT_ID
    )
    eks.add_cluster("team")
    iam.create_role("instantstart-demo-eks-cluster", {}, {}, "arn:aws:iam::123456789012:policy/boundary")
    assert stack.delete_eks_cluster(imported)["action"] == "kept (imported)"
    assert stack.check_eks_cluster_deleted(imported).status == "KEPT"
    assert stack.delete_cluster_role(imported)["action"] == "kept (not ours)"
    assert eks.find_cluster("team").status == "ACTIVE"


@pytest.mark.parametrize(
    "other", [replace(DEPLOYMENT, name="blue"), replace(DEPLOYMENT, region="eu-west-1")], ids=["name", "region"]
)
def test_a_role_of_another_deployment_is_refused_named_and_left_untouched(stack, ctx, deleting, iam, other):
    iam.create_role("instantstart-demo-eks-cluster", {}, ownership_tags(other, "demo"), SERVICE_BOUNDARY)
    owner = f"It belongs to deployment '{other.name}' in Region {other.region} (cluster 'demo')."
    with pytest.raises(ForeignResourceError, match=re.escape(owner)):
        stack.ensure_cluster_role(ctx)
    assert iam.find_role("instantstart-demo-eks-cluster").attached_policy_arns == frozenset()
    assert stack.delete_cluster_role(deleting)["action"] == "kept (not ours)"
    assert iam.find_role("instantstart-demo-eks-cluster") is not None


def test_a_deployment_in_another_partition_names_its_roles_and_policy_arns_there(network, iam, eks, clock, ctx):
    china = Deployment(name="blue", region="cn-north-1", partition="aws-cn")
    poll = Poller(PollSettings(first_wait_seconds=5, max_wait_seconds=5), clock)
    access = ControlPlaneAccess(CONTROL_PLANE_ROLE, VIEW_ROLE, JOBS_ROLE, JOB_WRITERS_GROUP, VIEWERS_GROUP)
    stack = EksStackService(network, iam, eks, InMemoryKubernetesGateway(), access, poll, SERVICE_BOUNDARY, china)
    stack.ensure_cluster_role(ctx)
    role = iam.find_role("blue-demo-eks-cluster")
    assert role.attached_policy_arns == frozenset({"arn:aws-cn:iam::aws:policy/AmazonEKSClusterPolicy"})
    assert role.tags == ownership_tags(china, "demo")
