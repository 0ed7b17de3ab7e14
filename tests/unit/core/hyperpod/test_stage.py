"""Stage 4's steps against in-memory fakes: observe, decide, act, so that a retry or a resume converges."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from pydantic import ValidationError

from controlplane.core.hyperpod.conversions import group_spec
from controlplane.core.hyperpod.stage import ON_CREATE_SCRIPT
from controlplane.core.hyperpod_roles import TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT
from controlplane.core.naming import (
    compute_subnet_key,
    hyperpod_execution_role_name,
    lifecycle_bucket_name,
    ownership_tags,
    training_operator_role_name,
)
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.models.clusters import ImportedNetwork
from controlplane.models.errors import (
    DependencyFailedError,
    ForeignResourceError,
    InvalidRequestError,
    ResourceNotReadyError,
    WaitTimeoutError,
)
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.operations import OperationKind
from controlplane.models.workflow import PollState, WorkflowInput, parse_input
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.hyperpod import new_group
from tests.unit.core.hyperpod.world import ACCOUNT, REGION, SERVICE_BOUNDARY, TAG, World

HP = "hp-cluster-demo"
BUCKET = lifecycle_bucket_name("demo", ACCOUNT, REGION)
PLAN = HyperPodPlan(
    availabilityZone="us-west-2a",
    instanceType="ml.g6.4xlarge",
    instanceCount=2,
    capacityType="on-demand",
    ebsVolumeSizeGb=500,
    instanceGroupName="accelerated-worker",
    deepHealthChecks=True,
    dedicatedSubnet=False,
    threadsPerCore=1,
    minInstanceCount=1,
)
NAT_NETWORK = ImportedNetwork(
    vpcId="vpc-theirs", vpcCidr="10.8.0.0/16", subnetIds=["subnet-x"], securityGroupId="sg-eks", natGatewayId="nat-1"
)


def ctx(started: datetime | None = None, **fields: object) -> WorkflowInput:
    values: dict[str, object] = {
        "operationId": "op-1",
        "kind": OperationKind.CREATE_HYPERPOD_CLUSTER,
        "clusterTag": "demo",
        "incarnation": "inc-demo",
        "region": REGION,
        "accountId": ACCOUNT,
        "eksClusterName": "eks-cluster-demo",
        "hyperPodClusterName": "hp-cluster-demo",
        "imported": False,
        "hyperpod": PLAN,
        "poll": None if started is None else PollState(done=False, attempts=1, waitSeconds=0, startedAt=started),
    }
    return parse_input({**values, **fields})


@pytest.fixture
def world() -> World:
    world = World()
    vpc = world.network.create_vpc(TAG, "10.1.0.0/16")
    world.network.create_route_table(TAG, "private", vpc.vpc_id)
    world.network.create_security_group(TAG, vpc.vpc_id)
    world.eks.add_cluster("eks-cluster-demo")
    return world


EXECUTION_POLICIES = frozenset(
    f"arn:aws:iam::aws:policy/{name}"
    for name in (
        "AmazonSageMakerClusterInstanceRolePolicy",
        "AmazonEKS_CNI_Policy",
        "AmazonEC2ContainerRegistryPullOnly",
        "AmazonEKSWorkerNodeMinimalPolicy",
    )
)


def test_execution_role_is_created_with_its_policies_once(world):
    stage = world.stage()
    arn = stage.ensure_execution_role(ctx())["roleArn"]
    role = world.iam.find_role(hyperpod_execution_role_name(DEPLOYMENT, "demo"))
    assert (role.arn, role.attached_policy_arns) == (arn, EXECUTION_POLICIES)
    assert world.iam.roles[hyperpod_execution_role_name(DEPLOYMENT, "demo")].boundary_arn == SERVICE_BOUNDARY
    assert stage.ensure_execution_role(ctx())["roleArn"] == arn


def test_an_execution_role_made_with_only_the_instance_policy_gets_the_eks_node_policies(world):
    name = hyperpod_execution_role_name(DEPLOYMENT, "demo")
    world.iam.create_role(name, {}, ownership_tags(DEPLOYMENT, "demo"), SERVICE_BOUNDARY)
    world.iam.attach_policy(name, "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy")

    world.stage().ensure_execution_role(ctx())

    assert world.iam.find_role(name).attached_policy_arns == EXECUTION_POLICIES


def test_a_role_of_the_same_name_that_is_not_ours_is_refused(world):
    name = hyperpod_execution_role_name(DEPLOYMENT, "demo")
    world.iam.create_role(name, {}, {}, SERVICE_BOUNDARY)
    with pytest.raises(ForeignResourceError):
        world.stage().ensure_execution_role(ctx())


def test_lifecycle_scripts_go_to_an_owned_bucket_and_are_uploaded_when_they_differ(world):
    stage = world.stage()
    assert stage.ensure_lifecycle_scripts(ctx()) == {"lifecycleUri": f"s3://{BUCKET}/lifecycle/"}
    assert world.buckets.bucket_tags(BUCKET) == ownership_tags(DEPLOYMENT, "demo")
    assert world.buckets.object_body(BUCKET, "lifecycle/on_create.sh") == ON_CREATE_SCRIPT.read_bytes()
    world.buckets.put_object(BUCKET, "lifecycle/on_create.sh", b"edited")
    stage.ensure_lifecycle_scripts(ctx())
    assert world.buckets.object_body(BUCKET, "lifecycle/on_create.sh") == ON_CREATE_SCRIPT.read_bytes()


def test_a_lifecycle_bucket_that_is_not_ours_is_refused(world):
    world.buckets.create_bucket(BUCKET, {"owner": "someone"})
    with pytest.raises(ForeignResourceError):
        world.stage().ensure_lifecycle_scripts(ctx())


def test_the_workflow_input_needs_an_account_for_the_bucket_name():
    with pytest.raises(ValidationError, match="accountId"):
        ctx(accountId=None)


def test_the_compute_subnet_is_created_in_a_free_block_and_joins_the_private_route_table(world):
    result = world.stage().ensure_compute_subnet(ctx())
    subnet = world.network.find_subnets(TAG)[compute_subnet_key("us-west-2a")]
    assert result == {"subnetId": subnet.subnet_id, "cidr": subnet.cidr}
    assert world.network.find_route_table(TAG, "private").subnet_ids == {subnet.subnet_id}
    assert world.stage().ensure_compute_subnet(ctx()) == result


def test_an_imported_cluster_gets_its_own_compute_route_table_through_its_nat_gateway(world):
    world.stage().ensure_compute_subnet(ctx(importedNetwork=NAT_NETWORK))
    table = world.network.find_route_table(TAG, "compute")
    assert table.routes == {"0.0.0.0/0": "nat-1"}
    assert table.subnet_ids == {world.network.find_subnets(TAG)[compute_subnet_key("us-west-2a")].subnet_id}


def test_an_imported_cluster_without_nat_gateway_cannot_host_nodes(world):
    network = NAT_NETWORK.model_copy(update={"natGatewayId": None})
    with pytest.raises(InvalidRequestError, match="has no NAT gateway route"):
        world.stage().ensure_compute_subnet(ctx(importedNetwork=network))
    assert world.network.subnets == {}


def test_create_waits_for_every_prerequisite(world):
    with pytest.raises(ResourceNotReadyError):
        world.stage().create_hyperpod_cluster(ctx())
    assert world.hyperpod.calls == []


def test_create_sends_the_first_group_and_is_found_on_retry(world):
    stage = world.stage()
    stage.ensure_execution_role(ctx())
    stage.ensure_compute_subnet(ctx())
    assert stage.create_hyperpod_cluster(ctx())["action"] == "created"
    cluster = world.hyperpod.clusters[HP]
    [group] = cluster.groups
    assert (group.name, group.target_count, group.min_count, group.deep_health_checks) == (
        "accelerated-worker",
        2,
        1,
        True,
    )
    security_group = world.network.find_security_group(TAG)
    assert (cluster.security_group_ids, cluster.tags) == ((security_group,), ownership_tags(DEPLOYMENT, "demo"))
    assert stage.create_hyperpod_cluster(ctx())["action"] == "found"
    assert world.hyperpod.calls == [("create_cluster", HP)]


def test_create_on_an_imported_network_joins_the_eks_security_group(world):
    stage = world.stage()
    stage.ensure_execution_role(ctx())
    stage.ensure_compute_subnet(ctx(importedNetwork=NAT_NETWORK))
    stage.create_hyperpod_cluster(ctx(importedNetwork=NAT_NETWORK))
    assert world.hyperpod.clusters[HP].security_group_ids == ("sg-eks",)


def test_a_hyperpod_cluster_of_the_same_name_that_is_not_ours_is_refused(world):
    world.hyperpod.put_cluster(HP)
    with pytest.raises(ForeignResourceError):
        world.stage().create_hyperpod_cluster(ctx())


def test_check_is_done_when_the_cluster_and_every_group_are_in_service(world):
    stage = world.stage()
    stage.ensure_execution_role(ctx())
    stage.ensure_compute_subnet(ctx())
    stage.create_hyperpod_cluster(ctx())
    state = stage.check_hyperpod_cluster(ctx())
    assert (state.done, state.status) == (False, "Creating")
    world.hyperpod.settle()
    assert stage.check_hyperpod_cluster(ctx(state.startedAt)).done is True


def test_check_of_a_missing_cluster_needs_the_create_step(world):
    with pytest.raises(ResourceNotReadyError, match="does not exist"):
        world.stage().check_hyperpod_cluster(ctx())


def test_check_of_a_failed_cluster_names_the_failure(world):
    world.hyperpod.put_cluster(
        HP, status="Failed", failure_message="InsufficientCapacity", tags=ownership_tags(DEPLOYMENT, "demo")
    )
    with pytest.raises(DependencyFailedError, match="is Failed: InsufficientCapacity"):
        world.stage().check_hyperpod_cluster(ctx())


def test_check_gives_up_once_the_deadline_has_passed(world):
    world.hyperpod.put_cluster(HP, status="Creating", tags=ownership_tags(DEPLOYMENT, "demo"))
    started = world.clock.now()
    world.clock.sleep(timedelta(hours=5).total_seconds())
    with pytest.raises(
        WaitTimeoutError, match=r"hp-cluster-demo and its instances to be in service; its status is Creating"
    ):
        world.stage().check_hyperpod_cluster(ctx(started))


def test_a_first_group_of_500_with_deep_health_checks_is_waited_for_past_the_old_one_hour_bound(world):
    """120 checks 30 s apart gave every wait one hour; 500 instances with deep health checks get 4 h 40 min."""
    large = InstanceGroup(
        name="gpu",
        instance_type="ml.p5.48xlarge",
        status="Creating",
        current_count=0,
        target_count=500,
        deep_health_checks=True,
    )
    world.hyperpod.put_cluster(HP, (large,), status="Creating", tags=ownership_tags(DEPLOYMENT, "demo"))
    started = world.clock.now()
    world.clock.sleep(timedelta(hours=4, minutes=39).total_seconds())
    state = world.stage().check_hyperpod_cluster(ctx(started))
    assert (state.done, state.status, state.startedAt) == (False, "Creating", started)
    world.clock.sleep(timedelta(minutes=1).total_seconds())
    with pytest.raises(WaitTimeoutError, match=r"waiting 4 h 40 min \(this wait's deadline: 4 h 40 min\)"):
        world.stage().check_hyperpod_cluster(ctx(started))


def test_training_operator_identity_is_associated_once(world):
    stage = world.stage()
    arn = stage.ensure_training_operator_identity(ctx())["roleArn"]
    key = ("eks-cluster-demo", TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT)
    assert world.eks.pod_identities[key] == arn
    assert stage.ensure_training_operator_identity(ctx())["roleArn"] == arn


def test_another_pod_identity_for_the_training_operator_is_refused(world):
    key = ("eks-cluster-demo", TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT)
    world.eks.pod_identities[key] = "arn:aws:iam::123456789012:role/theirs"
    with pytest.raises(ForeignResourceError, match="already has a pod identity association"):
        world.stage().ensure_training_operator_identity(ctx())


def test_delete_asks_once_keeps_a_foreign_cluster_and_finishes_when_it_is_gone(world):
    stage = world.stage()
    assert stage.delete_hyperpod_cluster(ctx())["action"] == "absent"
    world.hyperpod.put_cluster(HP, tags=ownership_tags(DEPLOYMENT, "demo"))
    assert stage.delete_hyperpod_cluster(ctx())["action"] == "deleting"
    assert stage.delete_hyperpod_cluster(ctx())["action"] == "deleting"
    assert world.hyperpod.calls == [("delete_cluster", HP)]
    assert stage.check_hyperpod_cluster_deleted(ctx()).done is False
    world.hyperpod.settle()
    assert stage.check_hyperpod_cluster_deleted(ctx()).status == "DELETED"
    world.hyperpod.put_cluster(HP, tags={})
    assert stage.delete_hyperpod_cluster(ctx())["action"] == "kept (not ours)"
    assert stage.check_hyperpod_cluster_deleted(ctx()).done is True


def test_delete_resources_removes_only_what_stage_4_owns(world):
    stage = world.stage()
    stage.ensure_execution_role(ctx())
    stage.ensure_lifecycle_scripts(ctx())
    other = training_operator_role_name(DEPLOYMENT, "demo")
    world.iam.create_role(other, {}, {}, SERVICE_BOUNDARY)
    result = stage.delete_hyperpod_resources(ctx())
    assert result == {"deleted": f"role {hyperpod_execution_role_name(DEPLOYMENT, 'demo')}, bucket {BUCKET}"}
    assert set(world.iam.roles) == {other}
    assert stage.delete_hyperpod_resources(ctx()) == {"deleted": "nothing left"}


def test_a_cluster_whose_group_is_still_creating_is_not_done(world):
    creating = new_group(group_spec(PLAN, "arn:role", f"s3://{BUCKET}/lifecycle/"))
    world.hyperpod.put_cluster(HP, tags=ownership_tags(DEPLOYMENT, "demo"))
    world.hyperpod.clusters[HP] = replace(world.hyperpod.clusters[HP], groups=(creating,))
    assert world.stage().check_hyperpod_cluster(ctx()).done is False
