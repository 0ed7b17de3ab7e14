"""POST /clusters/import: adopt a cluster built outside the control plane, build on it, and delete only our part.

The "existing" clusters are made with boto3 straight against the sandbox's moto (not through the API),
the way a team's own tooling would have made them.
"""

from __future__ import annotations

import json
import time

import pytest
from moto.eks.models import eks_backends

from controlplane.adapters.k8s import manifests
from controlplane.config import cluster_dependencies
from controlplane.core.identity import EXECUTION_ROLE_POLICIES
from controlplane.core.naming import CLUSTER_TAG_KEY
from controlplane.core.stages import WORKFLOW_STAGES
from controlplane.models.operations import OperationKind
from sandbox.runtime import ACCOUNT_ID
from tests.conftest import aws_client
from tests.inventory import account_inventory, inventory_diff
from tests.workflows.confirm import confirmed
from tests.workflows.faults import fail_each_step_in_turn

REGION = "us-west-2"
FIRST_GROUP = {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1}
TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "eks.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
)
# Only the control plane's three access entries (steps: cluster admin; API: view; API jobs role: job writers'
# group) and tags are added by import.
ACCESS_ENTRY_ONLY = {"access_entries": 3}


def existing_cluster(
    name: str, *, mode: str = "API_AND_CONFIG_MAP", egress: bool = True, endpoint: dict | None = None
) -> dict[str, str]:
    """A team's own VPC (private subnets behind a NAT gateway unless `egress` is false) and EKS cluster, its endpoint
    access EKS's defaults unless `endpoint` says otherwise."""
    ec2 = aws_client("ec2", region_name=REGION)
    vpc = ec2.create_vpc(CidrBlock="10.60.0.0/16")["Vpc"]["VpcId"]
    private = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.60.{i}.0/24", AvailabilityZone=f"{REGION}{zone}")["Subnet"][
            "SubnetId"
        ]
        for i, zone in enumerate("ab")
    ]
    public = ec2.create_subnet(VpcId=vpc, CidrBlock="10.60.10.0/24", AvailabilityZone=f"{REGION}a")["Subnet"]
    gateway = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
    ec2.attach_internet_gateway(InternetGatewayId=gateway, VpcId=vpc)
    allocation = ec2.allocate_address(Domain="vpc")["AllocationId"]
    nat = ec2.create_nat_gateway(SubnetId=public["SubnetId"], AllocationId=allocation)["NatGateway"]["NatGatewayId"]
    table = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    if egress:
        ec2.create_route(RouteTableId=table, DestinationCidrBlock="0.0.0.0/0", NatGatewayId=nat)
    for subnet in private:
        ec2.associate_route_table(RouteTableId=table, SubnetId=subnet)
    group = ec2.create_security_group(GroupName=f"{name}-sg", Description="team cluster", VpcId=vpc)["GroupId"]
    role = aws_client("iam").create_role(RoleName=f"{name}-eks", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    eks = aws_client("eks", region_name=REGION)
    cluster = eks.create_cluster(
        name=name,
        roleArn=role,
        resourcesVpcConfig={"subnetIds": private, "securityGroupIds": [group], **(endpoint or {})},
        accessConfig={"authenticationMode": mode},
    )["cluster"]
    while eks.describe_cluster(name=name)["cluster"]["status"] != "ACTIVE":
        time.sleep(0.1)
    return {"arn": cluster["arn"], "vpc": vpc, "subnet": private[0], "group": group, "nat": nat}


def existing_hyperpod(name: str, cluster: dict[str, str]) -> None:
    """A HyperPod cluster the team created on its EKS cluster, InService."""
    sagemaker = aws_client("sagemaker", region_name=REGION)
    iam = aws_client("iam")
    role = iam.create_role(RoleName=f"{name}-exec", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    for policy in EXECUTION_ROLE_POLICIES:  # what an EKS-orchestrated HyperPod node's role needs
        iam.attach_role_policy(RoleName=f"{name}-exec", PolicyArn=f"arn:aws:iam::aws:policy/{policy}")
    sagemaker.create_cluster(
        ClusterName=name,
        InstanceGroups=[
            {
                "InstanceGroupName": "workers",
                "InstanceType": "ml.g6.4xlarge",
                "InstanceCount": 1,
                "ExecutionRole": role,
                "LifeCycleConfig": {"SourceS3Uri": f"s3://sagemaker-{name}/", "OnCreate": "on_create.sh"},
                "ThreadsPerCore": 1,
            }
        ],
        VpcConfig={"SecurityGroupIds": [cluster["group"]], "Subnets": [cluster["subnet"]]},
        Orchestrator={"Eks": {"ClusterArn": cluster["arn"]}},
    )
    while sagemaker.describe_cluster(ClusterName=name)["ClusterStatus"] != "InService":
        time.sleep(0.1)


def existing_dependencies(running_sandbox, name: str) -> None:
    """What stage 3 would install, installed by the team: OIDC provider, add-ons, device plugins; and a claim."""
    eks = aws_client("eks", region_name=REGION)
    issuer = eks.describe_cluster(name=name)["cluster"]["identity"]["oidc"]["issuer"]
    aws_client("iam").create_open_id_connect_provider(Url=issuer, ClientIDList=["sts.amazonaws.com"])
    for addon, version in cluster_dependencies().addons.items():
        eks.create_addon(clusterName=name, addonName=addon, addonVersion=version)
    for addon in cluster_dependencies().addons:
        while eks.describe_addon(clusterName=name, addonName=addon)["addon"]["status"] != "ACTIVE":
            time.sleep(0.1)
    store = running_sandbox.sandbox.emulator.store(name)
    for pin in cluster_dependencies().manifests.values():
        for obj in manifests.render("hyperpod-dependencies", pin.file, {"image": pin.image}):
            store.put(obj)
    store.put(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "s3-claim", "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Gi"}}},
        }
    )


def import_cluster(running_sandbox, body: dict) -> dict:
    with running_sandbox.client() as api:
        response = api.post("/clusters/import", json=body)
    assert response.status_code == 202, response.text
    return running_sandbox.wait_terminal(response.json()["operationId"])


def confirmed_delete(running_sandbox, tag: str) -> dict:
    """The cluster's deletion, confirmed with the token of its plan, once it has ended."""
    with running_sandbox.client() as api:
        accepted = confirmed(api, "DELETE", f"/clusters/{tag}").json()
    return running_sandbox.wait_terminal(accepted["operationId"], limit_seconds=120)


def eventually(read, expected, seconds: float = 10):
    """The value once it equals `expected`, or the last one read: EKS deletes add-ons asynchronously."""
    deadline = time.monotonic() + seconds
    value = read()
    while value != expected and time.monotonic() < deadline:
        time.sleep(0.2)
        value = read()
    return value


def eks_tags(name: str) -> dict[str, str]:
    return aws_client("eks", region_name=REGION).describe_cluster(name=name)["cluster"].get("tags") or {}


def vpc_tags(vpc: str) -> dict[str, str]:
    tags = aws_client("ec2", region_name=REGION).describe_vpcs(VpcIds=[vpc])["Vpcs"][0].get("Tags") or []
    return {tag["Key"]: tag["Value"] for tag in tags}


def test_a_bare_eks_cluster_is_imported_with_only_the_eks_stage_and_its_access_entry(running_sandbox):
    cluster = existing_cluster("team-bare")
    before = account_inventory()
    body = {"clusterTag": "imbare", "region": REGION, "eksClusterName": "team-bare"}
    with running_sandbox.client() as api:
        plan = api.post("/clusters/import", params={"dryRun": "true"}, json=body)
        assert plan.status_code == 200, plan.text
        assert ("keep", "AWS::EKS::Cluster") in {(a["action"], a["resource"]) for a in plan.json()["actions"]}
        assert api.get("/clusters/imbare").status_code == 404
    assert account_inventory() == before

    operation = import_cluster(running_sandbox, body)
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    assert [stage["name"] for stage in operation["stages"]] == list(WORKFLOW_STAGES[OperationKind.IMPORT_CLUSTER])
    with running_sandbox.client("sandbox-viewer") as api:
        view = api.get("/clusters/imbare").json()
    assert (view["status"], view["imported"], view["stagesDone"], view["adopted"]) == ("ACTIVE", True, ["eks"], ["eks"])
    assert view["eksClusterName"] == "team-bare"
    assert inventory_diff(before, account_inventory()) == ACCESS_ENTRY_ONLY
    assert eks_tags("team-bare")[CLUSTER_TAG_KEY] == "imbare"
    assert vpc_tags(cluster["vpc"])[CLUSTER_TAG_KEY] == "imbare"


def test_an_eks_cluster_running_hyperpod_is_imported_with_every_stage_it_has(running_sandbox):
    cluster = existing_cluster("team-full")
    existing_hyperpod("team-hp", cluster)
    existing_dependencies(running_sandbox, "team-full")
    before = account_inventory()
    objects_before = running_sandbox.sandbox.emulator.store("team-full").count()
    body = {"clusterTag": "imfull", "region": REGION, "eksClusterName": "team-full", "hyperPodClusterName": "team-hp"}

    operation = import_cluster(running_sandbox, body)
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    with running_sandbox.client() as api:
        view = api.get("/clusters/imfull").json()
        assert view["stagesDone"] == ["eks", "dependencies", "hyperpod", "storage"]
        assert view["adopted"] == view["stagesDone"]
        assert (view["hyperPodClusterName"], view["storageClaim"]) == ("team-hp", "default/s3-claim")
        assert api.get("/clusters/imfull/status").json()["hyperPodStatus"] == "InService"
        again = api.post("/clusters/imfull/hyperpod", json=FIRST_GROUP)
        assert again.status_code == 409, again.text
        # The adopted HyperPod cluster is read, never changed: groups and nodes are listed, changes refused.
        (group,) = api.get("/clusters/imfull/instance-groups").json()["instanceGroups"]
        (node, *_) = api.get("/clusters/imfull/nodes").json()["nodes"]
        for method, path, body in (
            ("patch", f"/clusters/imfull/instance-groups/{group['instanceGroupName']}", {"instanceCount": 3}),
            ("post", "/clusters/imfull/instance-groups", {**FIRST_GROUP, "instanceGroupName": "more"}),
            ("post", f"/clusters/imfull/nodes/{node['nodeId']}/reboot", None),
        ):
            refused = api.request(method.upper(), path, json=body)
            assert refused.status_code == 409 and refused.json()["code"] == "ForeignResource", refused.text
            assert "adopted" in refused.json()["message"]
        storage = api.post("/clusters/imfull/storage", json={})
        assert storage.status_code == 409 and "its own Mountpoint for S3 CSI driver" in storage.json()["message"]
    assert inventory_diff(before, account_inventory()) == ACCESS_ENTRY_ONLY

    with running_sandbox.client() as api:
        plan = api.delete("/clusters/imfull").json()
    kept = {(a["resource"], a["name"]) for a in plan["actions"] if a["action"] == "keep"}
    assert kept == {
        ("AWS::EKS::Cluster", "team-full"),
        ("AWS::EC2::VPC", cluster["vpc"]),
        ("AWS::SageMaker::Cluster", "team-hp"),
    }
    deleted = confirmed_delete(running_sandbox, "imfull")
    assert deleted["status"] == "SUCCEEDED", deleted.get("error")
    assert inventory_diff(before, account_inventory()) == {}
    assert running_sandbox.sandbox.emulator.store("team-full").count() == objects_before
    assert CLUSTER_TAG_KEY not in eks_tags("team-full")
    assert CLUSTER_TAG_KEY not in vpc_tags(cluster["vpc"])
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.get("/clusters/imfull").status_code == 404


def test_the_stages_build_on_an_imported_cluster_and_delete_removes_only_their_work(running_sandbox):
    cluster = existing_cluster("team-grow")
    before = account_inventory()
    objects_before = running_sandbox.sandbox.emulator.store("team-grow").count()
    assert import_cluster(running_sandbox, {"clusterTag": "imgrow", "region": REGION, "eksClusterName": "team-grow"})[
        "status"
    ] == ("SUCCEEDED")
    with running_sandbox.client() as api:
        for path, body in (("dependencies", None), ("hyperpod", FIRST_GROUP), ("storage", {})):
            accepted = api.post(f"/clusters/imgrow/{path}", json=body)
            assert accepted.status_code == 202, accepted.text
            operation = running_sandbox.wait_terminal(accepted.json()["operationId"])
            assert operation["status"] == "SUCCEEDED", (path, operation.get("error"))
        status = api.get("/clusters/imgrow/status").json()
    assert status["ready"] is True, status["missing"]
    ec2 = aws_client("ec2", region_name=REGION)
    (compute,) = ec2.describe_subnets(Filters=[{"Name": "tag:instantstart:cluster", "Values": ["imgrow"]}])["Subnets"]
    assert compute["VpcId"] == cluster["vpc"]
    (table,) = ec2.describe_route_tables(Filters=[{"Name": "association.subnet-id", "Values": [compute["SubnetId"]]}])[
        "RouteTables"
    ]
    assert {r.get("NatGatewayId") for r in table["Routes"]} >= {cluster["nat"]}
    grown = inventory_diff(before, account_inventory())
    assert "nat_gateways" not in grown and "vpcs" not in grown and "eks_clusters" not in grown
    assert grown["hyperpod_clusters"] == 1

    deleted = confirmed_delete(running_sandbox, "imgrow")
    assert deleted["status"] == "SUCCEEDED", deleted.get("error")
    # The data bucket is the one thing kept by design: the control plane never deletes data buckets.
    assert eventually(lambda: inventory_diff(before, account_inventory()), {"buckets": 1}) == {"buckets": 1}
    assert running_sandbox.sandbox.emulator.store("team-grow").count() == objects_before
    eks = aws_client("eks", region_name=REGION).describe_cluster(name="team-grow")["cluster"]
    assert eks["status"] == "ACTIVE"
    assert CLUSTER_TAG_KEY not in (eks.get("tags") or {})


def test_features_on_an_imported_cluster_act_on_its_own_hyperpod_cluster(running_sandbox):
    """Regression: the features workflow lost the adopted HyperPod cluster's name (and the import facts), so the
    dry run said "enabled" and the workflow failed at the step with "has no HyperPod cluster"."""
    existing_hyperpod("team-feat-hp", existing_cluster("team-feat"))
    body = {
        "clusterTag": "imfeat",
        "region": REGION,
        "eksClusterName": "team-feat",
        "hyperPodClusterName": "team-feat-hp",
    }
    assert import_cluster(running_sandbox, body)["status"] == "SUCCEEDED"
    sagemaker = aws_client("sagemaker", region_name=REGION)
    with running_sandbox.client() as api:
        # Features build on the dependencies stage, which this cluster did not bring.
        accepted = api.post("/clusters/imfeat/dependencies")
        assert running_sandbox.wait_terminal(accepted.json()["operationId"])["status"] == "SUCCEEDED"
        for enabled, outcome, mode in ((True, "enabled", "Enable"), (False, "disabled", "Disable")):
            change = {"tieredStorage": {"enabled": enabled}}
            plan = api.patch("/clusters/imfeat/features", params={"dryRun": "true"}, json=change)
            assert plan.json()["features"]["tieredStorage"]["outcome"] == outcome, plan.text
            # A disable is confirmed with the token of its plan.
            token = plan.json().get("confirmationToken")
            accepted = api.patch(
                "/clusters/imfeat/features", params={"confirmationToken": token} if token else None, json=change
            )
            assert accepted.status_code == 202, accepted.text
            operation = running_sandbox.wait_terminal(accepted.json()["operationId"])
            assert operation["status"] == "SUCCEEDED", operation.get("error")
            assert api.get("/clusters/imfeat/features").json()["features"]["tieredStorage"]["enabled"] is enabled
            tiered = sagemaker.describe_cluster(ClusterName="team-feat-hp").get("TieredStorageConfig") or {}
            assert tiered.get("Mode", "Disable") == mode


def test_hyperpod_in_an_imported_vpc_without_nat_egress_is_refused_not_given_a_second_nat(running_sandbox):
    existing_cluster("team-closed", egress=False)
    body = {"clusterTag": "imclosed", "region": REGION, "eksClusterName": "team-closed"}
    assert import_cluster(running_sandbox, body)["status"] == "SUCCEEDED"
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/imclosed/dependencies").json()
        assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
        before = account_inventory()
        refused = api.post("/clusters/imclosed/hyperpod", json=FIRST_GROUP)
    assert refused.status_code == 400, refused.text
    assert "no NAT gateway route" in refused.json()["message"]
    assert account_inventory() == before


def test_every_import_step_fails_once_in_turn_and_resume_ends_in_the_same_inventory(running_sandbox):
    existing_cluster("team-imfaults")
    before = account_inventory()
    body = {"clusterTag": "imfaults", "region": REGION, "eksClusterName": "team-imfaults"}

    def start() -> str:
        with running_sandbox.client() as api:
            return api.post("/clusters/import", json=body).json()["operationId"]

    fail_each_step_in_turn(running_sandbox, OperationKind.IMPORT_CLUSTER, start)
    with running_sandbox.client() as api:
        view = api.get("/clusters/imfaults").json()
    assert (view["status"], view["stagesDone"]) == ("ACTIVE", ["eks"])
    assert inventory_diff(before, account_inventory()) == ACCESS_ENTRY_ONLY


def test_a_fault_while_releasing_an_imported_cluster_then_resume_keeps_it(running_sandbox):
    existing_cluster("team-rel")
    before = account_inventory()
    assert import_cluster(running_sandbox, {"clusterTag": "imrel", "region": REGION, "eksClusterName": "team-rel"})[
        "status"
    ] == ("SUCCEEDED")
    running_sandbox.sandbox.add_fault("release_imported_cluster", 1)
    failed = confirmed_delete(running_sandbox, "imrel")
    assert failed["status"] == "FAILED"
    with running_sandbox.client() as api:  # resuming a delete asks for a fresh confirmation, as starting it did
        assert confirmed(api, "POST", f"/operations/{failed['operationId']}/resume").status_code == 202
    assert running_sandbox.wait_terminal(failed["operationId"])["status"] == "SUCCEEDED"
    assert inventory_diff(before, account_inventory()) == {}


def test_bad_imports_are_refused_before_any_side_effect(running_sandbox):
    config_map = existing_cluster("team-cm", mode="CONFIG_MAP")
    other = existing_cluster("team-other")
    existing_hyperpod("team-other-hp", other)
    existing_cluster("team-taken")
    existing_cluster("team-free")
    free = {"clusterTag": "imbad", "region": REGION, "eksClusterName": "team-free"}
    assert config_map["arn"]
    base = {"region": REGION, "eksClusterName": "team-taken"}
    with running_sandbox.client() as api:
        taken = api.post("/clusters/import", json={"clusterTag": "imtaken", **base})
        running_sandbox.wait_terminal(taken.json()["operationId"])
    cases = [
        ({"clusterTag": "imbad", "region": REGION, "eksClusterName": "team-busy"}, 409, "ACTIVE"),
        ({"clusterTag": "imbad", "region": REGION, "eksClusterName": "no-such"}, 400, "No EKS cluster"),
        ({"clusterTag": "imbad", "region": REGION, "eksClusterName": "team-cm"}, 400, "API_AND_CONFIG_MAP"),
        ({"clusterTag": "imtaken", "region": REGION, "eksClusterName": "team-other"}, 409, "already exists"),
        ({"clusterTag": "imbad", **base}, 409, "already registered as 'imtaken'"),
        ({**free, "hyperPodClusterName": "nope"}, 400, "No HyperPod cluster"),
        ({**free, "hyperPodClusterName": "team-other-hp"}, 400, "orchestrated by"),
        ({"clusterTag": "imbad", "region": REGION, "eksClusterName": "bad name!"}, 400, "eksClusterName"),
        ({"clusterTag": "imbad", "region": "xx-nowhere-9", "eksClusterName": "team-cm"}, 400, "region"),
    ]
    existing_cluster("team-busy")
    # An EKS update in progress (the sandbox's EKS has no UpdateClusterVersion lifecycle to start one).
    eks_backends[ACCOUNT_ID][REGION].clusters["team-busy"].status = "UPDATING"
    before = account_inventory()
    with running_sandbox.client() as api:
        for body, status, fragment in cases:
            response = api.post("/clusters/import", json=body)
            assert response.status_code == status, (body, response.text)
            assert fragment in response.json()["message"], (body, response.json())
        assert api.get("/clusters/imbad").status_code == 404
    with running_sandbox.client("sandbox-operator") as api:
        assert api.post("/clusters/import", json={"clusterTag": "imbad", **base}).status_code == 403
    assert account_inventory() == before
    assert CLUSTER_TAG_KEY not in eks_tags("team-cm")
    assert CLUSTER_TAG_KEY not in eks_tags("team-free")


@pytest.mark.parametrize(
    ("endpoint", "setting"),
    [
        ({"endpointPublicAccess": False, "endpointPrivateAccess": True}, "endpointPublicAccess false"),
        ({"publicAccessCidrs": ["203.0.113.0/24"]}, "publicAccessCidrs 203.0.113.0/24"),
    ],
    ids=["private-only", "public-to-other-cidrs"],
)
def test_a_cluster_whose_endpoint_the_control_plane_cannot_reach_is_refused_at_pre_flight(
    running_sandbox, endpoint, setting
):
    """The control plane's functions run outside any VPC with no fixed address: such an import would start and then
    time out at its first Kubernetes call. Pre-flight names the setting and how to change it; once changed, the
    same request imports the cluster."""
    name = f"team-{endpoint.get('endpointPublicAccess', 'cidrs')}".lower()
    tag = f"im{name.removeprefix('team-')}"
    existing_cluster(name, endpoint=endpoint)
    body = {"clusterTag": tag, "region": REGION, "eksClusterName": name}
    before = account_inventory()
    with running_sandbox.client() as api:
        plan = api.post("/clusters/import", params={"dryRun": "true"}, json=body)
        assert plan.status_code == 200, plan.text
        (check,) = plan.json()["checks"]
        assert (check["status"], setting in check["fix"]) == ("fail", True), check
        refused = api.post("/clusters/import", json=body)
        assert refused.status_code == 400, refused.text
        assert refused.json()["code"] == "PreflightFailed"
        message = refused.json()["message"]
        assert setting in message and "publicAccessCidrs=0.0.0.0/0" in message and "update-cluster-config" in message
        assert api.get(f"/clusters/{tag}").status_code == 404
    assert account_inventory() == before
    assert CLUSTER_TAG_KEY not in eks_tags(name)

    aws_client("eks", region_name=REGION).update_cluster_config(
        name=name, resourcesVpcConfig={"endpointPublicAccess": True, "publicAccessCidrs": ["0.0.0.0/0"]}
    )
    assert import_cluster(running_sandbox, body)["status"] == "SUCCEEDED"


def test_an_imported_cluster_s_view_entry_gets_its_group_back_by_restoring_access(running_sandbox):
    """An import finished before its view entry named the viewers' group cannot be resumed: the refusal names the
    cluster's own tag (the adopted EKS cluster has another name) and POST access restores the group."""
    from controlplane.core.naming import VIEWERS_GROUP
    from controlplane.settings import settings

    existing_cluster("team-access")
    body = {"clusterTag": "imaccess", "region": REGION, "eksClusterName": "team-access"}
    assert import_cluster(running_sandbox, body)["status"] == "SUCCEEDED"
    eks = aws_client("eks", region_name=REGION)
    view = {"clusterName": "team-access", "principalArn": settings().kubernetes_view_role_arn}
    eks.update_access_entry(**view, kubernetesGroups=[])
    with running_sandbox.client() as api:
        refused = api.get("/clusters/imaccess/status")
        assert refused.status_code == 409 and "POST /clusters/imaccess/access" in refused.json()["message"]

        accepted = api.post("/clusters/imaccess/access")
        assert running_sandbox.wait_terminal(accepted.json()["operationId"])["status"] == "SUCCEEDED"

        assert api.get("/clusters/imaccess/status").status_code == 200
    assert eks.describe_access_entry(**view)["accessEntry"]["kubernetesGroups"] == [VIEWERS_GROUP]
