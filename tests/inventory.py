"""What stage 1 created for a cluster, counted from the (simulated) account by ownership tags."""

from __future__ import annotations

import boto3
from botocore.exceptions import ClientError

from controlplane.core.naming import CLUSTER_TAG_KEY, eks_cluster_name, eks_cluster_role_name
from tests.fakes.deployment import DEPLOYMENT


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
        "iam_roles": _exists(
            lambda: boto3.client("iam").get_role(RoleName=eks_cluster_role_name(DEPLOYMENT, cluster_tag))
        ),
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
    "access_entries": 3,  # the steps' (cluster admin), the API's (view) and the API's jobs role (job writers)
}
NOTHING = dict.fromkeys(COMPLETE_STAGE1, 0)


def account_inventory(region: str = "us-west-2") -> dict[str, int]:
    """Everything countable in the (simulated) account and Region, whoever created it: diff it around an import."""
    ec2 = boto3.client("ec2", region_name=region)
    eks = boto3.client("eks", region_name=region)
    iam = boto3.client("iam")
    clusters = eks.list_clusters()["clusters"]
    live = {"Name": "state", "Values": ["pending", "available"]}
    return {
        "vpcs": len(ec2.describe_vpcs()["Vpcs"]),
        "subnets": len(ec2.describe_subnets()["Subnets"]),
        "route_tables": len(ec2.describe_route_tables()["RouteTables"]),
        "internet_gateways": len(ec2.describe_internet_gateways()["InternetGateways"]),
        "nat_gateways": len(ec2.describe_nat_gateways(Filters=[live])["NatGateways"]),
        "elastic_ips": len(ec2.describe_addresses()["Addresses"]),
        "vpc_endpoints": len(
            [e for e in ec2.describe_vpc_endpoints()["VpcEndpoints"] if e["State"] not in ("deleted", "deleting")]
        ),
        "security_groups": len(ec2.describe_security_groups()["SecurityGroups"]),
        "iam_roles": sum(len(page["Roles"]) for page in iam.get_paginator("list_roles").paginate()),
        "oidc_providers": len(iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]),
        "eks_clusters": len(clusters),
        "access_entries": sum(len(eks.list_access_entries(clusterName=c)["accessEntries"]) for c in clusters),
        "addons": sum(len(eks.list_addons(clusterName=c)["addons"]) for c in clusters),
        "pod_identity_associations": sum(
            len(eks.list_pod_identity_associations(clusterName=c)["associations"]) for c in clusters
        ),
        "hyperpod_clusters": len(boto3.client("sagemaker", region_name=region).list_clusters()["ClusterSummaries"]),
        "buckets": len(boto3.client("s3").list_buckets()["Buckets"]),
    }


def inventory_diff(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """What changed, as counts added (positive) or removed (negative)."""
    return {key: after[key] - before[key] for key in before if after[key] != before[key]}
