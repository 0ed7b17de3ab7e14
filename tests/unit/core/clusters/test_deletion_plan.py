from controlplane.core.clusters.deletion_plan import delete_actions
from controlplane.models.clusters import ImportedNetwork
from tests.fakes.deployment import DEPLOYMENT

NETWORK = ImportedNetwork(vpcId="vpc-team", vpcCidr="10.60.0.0/16", subnetIds=[], securityGroupId="sg-1")


def test_a_cluster_the_control_plane_created_is_deleted_whole(make_record):
    actions = delete_actions(DEPLOYMENT, make_record("eks", "dependencies"))
    assert {action.action for action in actions} == {"delete"}
    assert [(action.resource, action.name) for action in actions] == [
        ("AWS::EKS::Cluster", "eks-cluster-demo"),
        ("AWS::IAM::Role", "instantstart-demo-eks-cluster"),
        ("AWS::IAM::Role", "instantstart-demo-s3-csi"),
        ("AWS::IAM::OIDCProvider", "OIDC provider of eks-cluster-demo"),
        (
            "AWS::IAM::Role",
            "instantstart-demo-fsx-csi, instantstart-demo-observability, instantstart-demo-inference, "
            "instantstart-demo-karpenter, instantstart-demo-tiered-ckpt",
        ),
        ("AWS::APS::Workspace", "instantstart-demo-observability"),
        ("AWS::EC2::VPC", "instantstart-demo-vpc"),
    ]


def test_the_plan_lists_everything_delete_removes_once_every_stage_is_done(make_record):
    record = make_record("eks", "dependencies", "hyperpod", "storage", fsxClaim="fsx-claim", storageBucket="data")
    planned = {(action.action, action.resource, action.name) for action in delete_actions(DEPLOYMENT, record)}
    assert {
        ("delete", "AWS::SageMaker::Cluster", "hp-cluster-demo"),
        ("delete", "AWS::IAM::Role", "instantstart-demo-hyperpod-exec"),
        ("delete", "AWS::IAM::Role", "instantstart-demo-training-operator"),
        ("delete", "AWS::S3::Bucket", f"sagemaker-is-demo-{record.accountId}-{record.region}"),
        ("delete", "AWS::FSx::FileSystem", "fsx-claim"),
        ("delete", "AWS::IAM::OIDCProvider", "OIDC provider of eks-cluster-demo"),
        ("keep", "AWS::S3::Bucket", "data"),
    } <= planned
    eks = next(action for action in delete_actions(DEPLOYMENT, record) if action.resource == "AWS::EKS::Cluster")
    assert "add-ons" in eks.detail


def test_its_hyperpod_cluster_goes_first_once_stage_four_is_done(make_record):
    (first, *_) = delete_actions(DEPLOYMENT, make_record("eks", "dependencies", "hyperpod"))
    assert (first.action, first.resource, first.name) == ("delete", "AWS::SageMaker::Cluster", "hp-cluster-demo")


def test_an_imported_cluster_keeps_everything_adopted(make_record):
    record = make_record(
        "eks",
        "dependencies",
        "hyperpod",
        imported=True,
        adopted=["eks", "hyperpod"],
        hyperPodClusterName="team-hp",
        eksClusterName="ml-platform",
        network=NETWORK,
    )
    kept = {(action.resource, action.name) for action in delete_actions(DEPLOYMENT, record) if action.action == "keep"}
    assert kept == {
        ("AWS::EKS::Cluster", "ml-platform"),
        ("AWS::EC2::VPC", "vpc-team"),
        ("AWS::SageMaker::Cluster", "team-hp"),
    }
    added = next(action for action in delete_actions(DEPLOYMENT, record) if action.name == "added by stages 3-5")
    assert added.detail.endswith("adopted stages are kept: eks, hyperpod")


def test_an_imported_cluster_loses_the_hyperpod_cluster_stage_four_made_for_it(make_record):
    record = make_record("eks", "dependencies", "hyperpod", imported=True, adopted=["eks"])
    deleted = {
        (action.resource, action.name) for action in delete_actions(DEPLOYMENT, record) if action.action == "delete"
    }
    assert ("AWS::SageMaker::Cluster", "hp-cluster-demo") in deleted
    assert ("AWS::EC2::Subnet", "instantstart-demo-compute-*") in deleted
    assert ("AWS::IAM::Role", "instantstart-demo-*") in deleted
