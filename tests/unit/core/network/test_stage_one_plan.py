from controlplane.core.network.plan import plan_network, stage_one_actions
from controlplane.core.ports.account import AvailabilityZone
from tests.fakes.deployment import DEPLOYMENT

ZONES = [AvailabilityZone("us-west-2a", "usw2-az1"), AvailabilityZone("us-west-2b", "usw2-az2")]


def test_stage_one_creates_the_network_the_role_the_cluster_and_its_access_entry_named_from_the_tag():
    network = plan_network({}, None, ZONES)
    actions = stage_one_actions(DEPLOYMENT, "demo", network, "1.33")
    assert {action.action for action in actions} == {"create"}
    names = [(action.resource, action.name) for action in actions]
    assert names[0] == ("AWS::EC2::VPC", "instantstart-demo-vpc")
    assert ("AWS::EC2::Subnet", "instantstart-demo-private-b") in names
    assert ("AWS::IAM::Role", "instantstart-demo-eks-cluster") in names
    assert ("AWS::EKS::Cluster", "eks-cluster-demo") in names
    assert names[-1] == ("AWS::EKS::AccessEntry", "control-plane role")
    cluster = next(action for action in actions if action.resource == "AWS::EKS::Cluster")
    assert cluster.detail.startswith("Kubernetes 1.33")
    assert actions[0].detail == f"{network.vpcCidr} (automatic)"


def test_each_planned_subnet_is_listed_with_its_cidr_and_zone():
    network = plan_network({}, "10.50.0.0/16", ZONES)
    subnets = [
        action
        for action in stage_one_actions(DEPLOYMENT, "demo", network, "1.34")
        if action.resource == "AWS::EC2::Subnet"
    ]
    assert len(subnets) == 4
    assert {action.detail for action in subnets} == {f"{s.cidr} in {s.availabilityZone}" for s in network.subnets}
