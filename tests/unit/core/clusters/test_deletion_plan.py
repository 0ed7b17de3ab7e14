from controlplane.core.clusters.deletion_plan import LiveFacts, Workloads, delete_actions, role_names
from controlplane.models.clusters import ClusterStatus, ImportedNetwork
from controlplane.models.endpoints import EndpointDetail, EndpointKind, EndpointState
from controlplane.models.serving import DeploymentSummary, ServiceType
from controlplane.models.training import JobKind, JobPhase, JobSummary
from tests.fakes.account import ACCOUNT_ID
from tests.fakes.deployment import DEPLOYMENT

NETWORK = ImportedNetwork(vpcId="vpc-team", vpcCidr="10.60.0.0/16", subnetIds=[], securityGroupId="sg-1")
EVERY_ROLE = LiveFacts(roles=frozenset(role_names(DEPLOYMENT, "demo")))
NOTHING_LIVE = LiveFacts()


def test_a_cluster_the_control_plane_created_is_deleted_whole(make_record):
    roles = frozenset({"instantstart-demo-eks-cluster", "instantstart-demo-s3-csi"})
    actions = delete_actions(DEPLOYMENT, make_record("eks", "dependencies"), LiveFacts(roles=roles))
    assert {action.action for action in actions} == {"delete"}
    assert [(action.resource, action.name) for action in actions] == [
        ("AWS::EKS::Cluster", "eks-cluster-demo"),
        ("AWS::IAM::Role", "instantstart-demo-eks-cluster"),
        ("AWS::IAM::Role", "instantstart-demo-s3-csi"),
        ("AWS::IAM::OIDCProvider", "OIDC provider of eks-cluster-demo"),
        ("AWS::S3::Bucket", f"hyperpod-tls-demo-{ACCOUNT_ID}-us-west-2"),
        ("AWS::APS::Workspace", "instantstart-demo-observability"),
        ("AWS::EC2::VPC", "instantstart-demo-vpc"),
        ("InstantStart cluster", "demo"),
    ]


def test_the_plan_lists_only_the_roles_that_exist(make_record):
    record = make_record("eks", "dependencies", "hyperpod")
    listed = [a.name for a in delete_actions(DEPLOYMENT, record, NOTHING_LIVE) if a.resource == "AWS::IAM::Role"]
    assert listed == []
    karpenter = LiveFacts(roles=frozenset({"instantstart-demo-karpenter"}))
    listed = [a.name for a in delete_actions(DEPLOYMENT, record, karpenter) if a.resource == "AWS::IAM::Role"]
    assert listed == ["instantstart-demo-karpenter"]


def test_the_plan_names_the_incarnation_and_state_it_was_made_for(make_record):
    creating = delete_actions(DEPLOYMENT, make_record(status=ClusterStatus.CREATING), NOTHING_LIVE)[-1]
    active = delete_actions(DEPLOYMENT, make_record("eks"), NOTHING_LIVE)[-1]
    assert (creating.resource, creating.name) == ("InstantStart cluster", "demo")
    assert creating.detail == "incarnation inc-demo, CREATING, stages done: none"
    assert active.detail == "incarnation inc-demo, ACTIVE, stages done: eks"


def test_the_work_on_the_cluster_is_listed_with_what_its_controllers_leave_behind(make_record):
    job = JobSummary(name="pretrain", kind=JobKind.HYPERPOD_PYTORCH_JOB, phase=JobPhase.RUNNING, nodes=1, gpusPerNode=1)
    done = job.model_copy(update={"name": "finished", "phase": JobPhase.SUCCEEDED})
    server = DeploymentSummary(
        name="chat",
        serviceType=ServiceType.EXTERNAL,
        engine="vllm",
        image="vllm",
        gpus=1,
        replicas=2,
        readyReplicas=2,
        status="Ready",
        port=8000,
    )
    endpoint = EndpointDetail(
        name="qwen",
        kind=EndpointKind.INFERENCE_ENDPOINT_CONFIG,
        state=EndpointState.DEPLOYMENT_COMPLETE,
        model="Qwen/Qwen3-0.6B",
        replicas=1,
        namespace="team",
        sageMakerEndpointName="is-demo-qwen",
    )
    work = Workloads(namespace="team", jobs=[job, done], servers=[server], endpoints=[endpoint])
    actions = delete_actions(DEPLOYMENT, make_record("eks", "hyperpod"), LiveFacts(workloads=work))
    listed = {(a.action, a.resource, a.name) for a in actions}
    assert {
        ("delete", "HyperPodPyTorchJob", "team/pretrain"),
        ("delete", "Deployment", "team/chat"),
        ("keep", "AWS::ElasticLoadBalancingV2::LoadBalancer", "load balancer of Service team/chat"),
        ("delete", "InferenceEndpointConfig", "team/qwen"),
        ("keep", "AWS::SageMaker::Endpoint", "is-demo-qwen"),
    } <= listed
    assert not any(name.endswith("finished") for _, _, name in listed)


def test_work_that_cannot_be_read_is_said_so(make_record):
    work = Workloads(unreadable="the cluster refuses the control plane")
    actions = delete_actions(DEPLOYMENT, make_record("eks"), LiveFacts(workloads=work))
    (unknown,) = [a for a in actions if a.resource == "Kubernetes workloads"]
    assert "the cluster refuses the control plane" in unknown.detail


def test_the_plan_lists_everything_delete_removes_once_every_stage_is_done(make_record):
    record = make_record("eks", "dependencies", "hyperpod", "storage", fsxClaim="fsx-claim", storageBucket="data")
    planned = {
        (action.action, action.resource, action.name) for action in delete_actions(DEPLOYMENT, record, EVERY_ROLE)
    }
    assert {
        ("delete", "AWS::SageMaker::Cluster", "hp-cluster-demo"),
        ("delete", "AWS::IAM::Role", "instantstart-demo-hyperpod-exec"),
        ("delete", "AWS::IAM::Role", "instantstart-demo-training-operator"),
        ("delete", "AWS::S3::Bucket", f"sagemaker-is-demo-{record.accountId}-{record.region}"),
        ("delete", "AWS::FSx::FileSystem", "fsx-claim"),
        ("delete", "AWS::IAM::OIDCProvider", "OIDC provider of eks-cluster-demo"),
        ("keep", "AWS::S3::Bucket", "data"),
    } <= planned
    eks = next(
        action for action in delete_actions(DEPLOYMENT, record, EVERY_ROLE) if action.resource == "AWS::EKS::Cluster"
    )
    assert "add-ons" in eks.detail


def test_its_hyperpod_cluster_goes_first_once_stage_four_is_done(make_record):
    (first, *_) = delete_actions(DEPLOYMENT, make_record("eks", "dependencies", "hyperpod"), EVERY_ROLE)
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
    actions = delete_actions(DEPLOYMENT, record, EVERY_ROLE)
    kept = {(action.resource, action.name) for action in actions if action.action == "keep"}
    assert kept == {
        ("AWS::EKS::Cluster", "ml-platform"),
        ("AWS::EC2::VPC", "vpc-team"),
        ("AWS::SageMaker::Cluster", "team-hp"),
    }
    added = next(action for action in actions if action.name == "added by stages 3-5")
    assert added.detail.endswith("adopted stages are kept: eks, hyperpod")


def test_an_imported_cluster_loses_the_hyperpod_cluster_stage_four_made_for_it(make_record):
    record = make_record("eks", "dependencies", "hyperpod", imported=True, adopted=["eks"])
    live = LiveFacts(roles=frozenset({"instantstart-demo-hyperpod-exec"}))
    deleted = {
        (action.resource, action.name)
        for action in delete_actions(DEPLOYMENT, record, live)
        if action.action == "delete"
    }
    assert ("AWS::SageMaker::Cluster", "hp-cluster-demo") in deleted
    assert ("AWS::EC2::Subnet", "instantstart-demo-compute-*") in deleted
    assert ("AWS::IAM::Role", "instantstart-demo-hyperpod-exec") in deleted


def test_a_teams_work_is_listed_in_the_teams_namespace(make_record):
    job = JobSummary(
        name="pretrain",
        namespace="hyperpod-ns-ml-a",
        kind=JobKind.HYPERPOD_PYTORCH_JOB,
        phase=JobPhase.RUNNING,
        nodes=1,
        gpusPerNode=1,
    )
    work = Workloads(namespace="default", jobs=[job])
    actions = delete_actions(DEPLOYMENT, make_record("eks", "hyperpod"), LiveFacts(workloads=work))
    assert ("HyperPodPyTorchJob", "hyperpod-ns-ml-a/pretrain") in {(a.resource, a.name) for a in actions}
