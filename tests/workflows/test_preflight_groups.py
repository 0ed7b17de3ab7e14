"""Pre-flight on a running cluster, through the API: a large group in a small subnet, and a scale-up beyond
the cluster-usage quota, are refused before HyperPod is asked for anything; their dry runs list the checks."""

from __future__ import annotations

import ipaddress

import pytest

from controlplane.core.naming import ROLE_TAG_KEY, ownership_tags
from tests.conftest import aws_client
from tests.fakes.deployment import DEPLOYMENT
from tests.workflows.test_create_hyperpod import FIRST_GROUP

TAG = "pfgroups"
REGION = "us-west-2"
USAGE = "ml.g6.4xlarge for cluster usage"
BIG = {
    "instanceGroupName": "big",
    "instanceType": "ml.g6.4xlarge",
    "instanceCount": 600,
    "availabilityZone": "us-west-2b",
}


@pytest.fixture(scope="module")
def cluster(running_sandbox):
    running_sandbox.build_cluster(TAG)
    return running_sandbox


def group_names() -> list[str]:
    cluster = aws_client("sagemaker", region_name=REGION).describe_cluster(ClusterName=f"hp-cluster-{TAG}")
    return [group["InstanceGroupName"] for group in cluster["InstanceGroups"]]


def small_compute_subnet(zone: str) -> str:
    """A /24 shared compute subnet in `zone` (as an older control plane laid them out), the last /24 of the VPC."""
    ec2 = aws_client("ec2", region_name=REGION)
    (vpc,) = ec2.describe_vpcs(Filters=[{"Name": "tag:instantstart:cluster", "Values": [TAG]}])["Vpcs"]
    cidr = str(list(ipaddress.IPv4Network(vpc["CidrBlock"]).subnets(new_prefix=24))[-1])
    tags = [
        {"Key": k, "Value": v} for k, v in {**ownership_tags(DEPLOYMENT, TAG), ROLE_TAG_KEY: f"compute-{zone}"}.items()
    ]
    subnet = ec2.create_subnet(
        VpcId=vpc["VpcId"],
        CidrBlock=cidr,
        AvailabilityZone=zone,
        TagSpecifications=[{"ResourceType": "subnet", "Tags": tags}],
    )["Subnet"]
    return subnet["SubnetId"]


def test_a_group_of_600_in_a_24_is_refused_with_the_dedicated_subnet_suggestion(cluster):
    cluster.sandbox.quotas.set(REGION, "sagemaker", USAGE, 1000)
    subnet_id = small_compute_subnet("us-west-2b")
    with cluster.client() as api:
        plan = api.post(f"/clusters/{TAG}/instance-groups", params={"dryRun": "true"}, json=BIG)
        refused = api.post(f"/clusters/{TAG}/instance-groups", json=BIG)
        dedicated = api.post(
            f"/clusters/{TAG}/instance-groups", params={"dryRun": "true"}, json={**BIG, "dedicatedSubnet": True}
        )
    assert plan.status_code == 200, plan.text
    addresses = next(c for c in plan.json()["checks"] if c["check"] == f"addresses: {subnet_id}")
    assert (addresses["status"], addresses["have"], addresses["need"]) == ("fail", 251, 600)
    assert "dedicatedSubnet=true" in addresses["fix"]
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "PreflightFailed" and "dedicatedSubnet=true" in refused.json()["message"]
    assert "big" not in group_names()
    statuses = {c["check"].split(" (")[0]: c["status"] for c in dedicated.json()["checks"]}
    assert statuses["addresses: new compute subnet"] == "pass"


def test_a_scale_up_beyond_the_cluster_usage_quota_is_refused_and_its_dry_run_lists_the_checks(cluster):
    cluster.sandbox.quotas.set(REGION, "sagemaker", USAGE, 3)
    name = group_names()[0]
    with cluster.client() as api:
        plan = api.patch(
            f"/clusters/{TAG}/instance-groups/{name}", params={"dryRun": "true"}, json={"instanceCount": 4}
        )
        refused = api.patch(f"/clusters/{TAG}/instance-groups/{name}", json={"instanceCount": 4})
        within = api.patch(
            f"/clusters/{TAG}/instance-groups/{name}", params={"dryRun": "true"}, json={"instanceCount": 2}
        )
    quota = next(c for c in plan.json()["checks"] if c["check"] == f"quota: {USAGE}")
    assert (quota["status"], quota["need"], quota["limit"]) == ("fail", 3, 3)
    assert refused.status_code == 400 and refused.json()["code"] == "PreflightFailed", refused.text
    assert quota["quotaCode"] in refused.json()["message"]
    assert {c["status"] for c in within.json()["checks"]} <= {"pass", "warn"}


def test_hyperpod_nodes_hold_addresses_in_their_subnet(cluster):
    ec2 = aws_client("ec2", region_name=REGION)
    (subnet,) = ec2.describe_subnets(
        Filters=[
            {"Name": "tag:instantstart:cluster", "Values": [TAG]},
            {"Name": f"tag:{ROLE_TAG_KEY}", "Values": [f"compute-{FIRST_GROUP['availabilityZone']}"]},
        ]
    )["Subnets"]
    size = ipaddress.IPv4Network(subnet["CidrBlock"]).num_addresses
    assert subnet["AvailableIpAddressCount"] == size - 5 - FIRST_GROUP["instanceCount"]
