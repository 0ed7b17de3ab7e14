"""What stage 1 created for a cluster, counted from the (simulated) account by ownership tags."""

from __future__ import annotations

import boto3
from botocore.exceptions import ClientError

from controlplane.core.naming import CLUSTER_TAG_KEY, eks_cluster_name, eks_cluster_role_name


def stage1_inventory(cluster_tag: str, region: str = "us-west-2") -> dict[str, int]:
    ec2 = boto3.client("ec2", region_name=region)
    tagged = [{"Name": f"tag:{CLUSTER_TAG_KEY}", "Values": [cluster_tag]}]
    nat = ec2.describe_nat_gateways(Filters=[*tagged, {"Name": "state", "Values": ["pending", "available"]}])
    endpoints = ec2.describe_vpc_endpoints(Filters=tagged)["VpcEndpoints"]
    counts = {
        "vpcs": len(ec2.describe_vpcs(Filters=tagged)["Vpcs"]),
        "subnets": len(ec2.describe_subnets(Filters=tagged)["Subnets"]),
        "internet_gateways": len(ec2.describe_internet_gateways(Filters=tagged)["InternetGateways"]),
        "nat_gateways": len(nat["NatGateways"]),
        "elastic_ips": len(ec2.describe_addresses(Filters=tagged)["Addresses"]),
        "route_tables": len(ec2.describe_route_tables(Filters=tagged)["RouteTables"]),
        "s3_endpoints": len([e for e in endpoints if e["State"] not in ("deleted", "deleting")]),
        "security_groups": len(ec2.describe_security_groups(Filters=tagged)["SecurityGroups"]),
        "iam_roles": _exists(lambda: boto3.client("iam").get_role(RoleName=eks_cluster_role_name(cluster_tag))),
        "eks_clusters": _exists(
            lambda: boto3.client("eks", region_name=region).describe_cluster(name=eks_cluster_name(cluster_tag))
        ),
    }
    counts["access_entries"] = (
        len(
            boto3.client("eks", region_name=region).list_access_entries(clusterName=eks_cluster_name(cluster_tag))[
                "accessEntries"
            ]
        )
        if counts["eks_clusters"]
        else 0
    )
    return counts


def _exists(call) -> int:
    try:
        call()
    except ClientError:
        return 0
    return 1


COMPLETE_STAGE1 = {
    "vpcs": 1,
    "subnets": 4,
    "internet_gateways": 1,
    "nat_gateways": 1,
    "elastic_ips": 1,
    "route_tables": 2,
    "s3_endpoints": 1,
    "security_groups": 1,
    "iam_roles": 1,
    "eks_clusters": 1,
    "access_entries": 1,
}
NOTHING = dict.fromkeys(COMPLETE_STAGE1, 0)
