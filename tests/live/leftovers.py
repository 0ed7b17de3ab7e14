"""What a deleted cluster may have left in the account: every resource still tagged `instantstart:cluster=<tag>` (the
Resource Groups Tagging API, in the cluster's Region and in us-east-1 for IAM), and each resource the control plane
names deterministically, looked up by that name (`controlplane.core.naming`: the same builders the steps use)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3
from botocore.exceptions import ClientError

from controlplane.core.naming import (
    CLUSTER_TAG_KEY,
    Deployment,
    data_bucket_name,
    eks_cluster_name,
    event_forwarding_rule_name,
    hyperpod_cluster_name,
    inference_tls_bucket_name,
    lifecycle_bucket_name,
    observability_workspace_alias,
)

# IAM is global; the tagging API lists its roles and policies in us-east-1.
IAM_TAGGING_REGION = "us-east-1"


@dataclass(frozen=True)
class Cluster:
    tag: str
    region: str
    account: str
    deployment: Deployment


def tagged(cluster: Cluster) -> list[str]:
    """ARNs of every resource still carrying the cluster's tag (EC2, EKS, SageMaker, FSx, S3, AMP; IAM), but NAT
    gateways and VPC endpoints already deleted (EC2 shows them, tags and all, for about an hour)."""
    found: list[str] = []
    for region in dict.fromkeys((cluster.region, IAM_TAGGING_REGION)):
        pages = boto3.client("resourcegroupstaggingapi", region_name=region).get_paginator("get_resources")
        for page in pages.paginate(TagFilters=[{"Key": CLUSTER_TAG_KEY, "Values": [cluster.tag]}]):
            found += [entry["ResourceARN"] for entry in page["ResourceTagMappingList"]]
    gone = _deleted_ec2(cluster.region)
    return sorted({arn for arn in found if arn.rsplit("/", 1)[-1] not in gone})


def _deleted_ec2(region: str) -> set[str]:
    ec2 = boto3.client("ec2", region_name=region)
    done = [{"Name": "state", "Values": ["deleted", "deleting"]}]
    nat = ec2.describe_nat_gateways(Filters=done)["NatGateways"]
    endpoints = ec2.describe_vpc_endpoints(Filters=[{"Name": "vpc-endpoint-state", "Values": ["deleted", "deleting"]}])
    return {g["NatGatewayId"] for g in nat} | {e["VpcEndpointId"] for e in endpoints["VpcEndpoints"]}


def named(cluster: Cluster, region_has_other_clusters: bool) -> list[str]:
    """The deterministic names that still exist (the data bucket is kept by design and reported apart)."""
    tag, region, account = cluster.tag, cluster.region, cluster.account
    s3 = boto3.client("s3", region_name=region)
    checks: dict[str, Callable[[], Any]] = {
        f"EKS cluster {eks_cluster_name(tag)}": lambda: boto3.client("eks", region_name=region).describe_cluster(
            name=eks_cluster_name(tag)
        ),
        f"HyperPod cluster {hyperpod_cluster_name(tag)}": lambda: boto3.client(
            "sagemaker", region_name=region
        ).describe_cluster(ClusterName=hyperpod_cluster_name(tag)),
        f"bucket {lifecycle_bucket_name(tag, account, region)}": lambda: s3.head_bucket(
            Bucket=lifecycle_bucket_name(tag, account, region), ExpectedBucketOwner=account
        ),
        f"bucket {inference_tls_bucket_name(tag, account, region)}": lambda: s3.head_bucket(
            Bucket=inference_tls_bucket_name(tag, account, region), ExpectedBucketOwner=account
        ),
    }
    found = [name for name, call in checks.items() if _exists(call)]
    prefix = f"{cluster.deployment.name}-{tag}-"
    iam = boto3.client("iam")
    for page in iam.get_paginator("list_roles").paginate():
        found += [f"IAM role {role['RoleName']}" for role in page["Roles"] if role["RoleName"].startswith(prefix)]
    for page in iam.get_paginator("list_policies").paginate(Scope="Local"):
        found += [f"IAM policy {p['PolicyName']}" for p in page["Policies"] if p["PolicyName"].startswith(prefix)]
    alias = observability_workspace_alias(cluster.deployment, tag)
    workspaces = boto3.client("amp", region_name=region).list_workspaces(alias=alias)["workspaces"]
    found += [f"Prometheus workspace {w['workspaceId']} ({w['status']['statusCode']})" for w in workspaces]
    rule = event_forwarding_rule_name(cluster.deployment)
    forwarded = region != cluster.deployment.region and not region_has_other_clusters
    if forwarded and _exists(lambda: boto3.client("events", region_name=region).describe_rule(Name=rule)):
        found.append(f"EventBridge rule {rule} in {region}")
    return found


def data_bucket(cluster: Cluster) -> str | None:
    """The storage stage's bucket, which deletion keeps by design (its data is the user's)."""
    name = data_bucket_name(cluster.tag, cluster.account, cluster.region)
    s3 = boto3.client("s3", region_name=cluster.region)
    return name if _exists(lambda: s3.head_bucket(Bucket=name, ExpectedBucketOwner=cluster.account)) else None


def remove_data_bucket(cluster: Cluster, bucket: str) -> None:
    """The suite's own test data: emptied and deleted, only while the bucket carries the cluster's tag."""
    s3 = boto3.resource("s3", region_name=cluster.region).Bucket(bucket)
    tags = {tag["Key"]: tag["Value"] for tag in s3.Tagging().tag_set}
    if tags.get(CLUSTER_TAG_KEY) != cluster.tag:
        return
    s3.object_versions.delete()
    s3.objects.delete()
    s3.delete()


def _exists(call: Callable[[], Any]) -> bool:
    try:
        call()
    except ClientError as error:
        code = str(error.response.get("Error", {}).get("Code", ""))
        if code in ("404", "403", "NoSuchBucket", "ResourceNotFoundException", "ResourceNotFound"):
            return False
        raise
    return True
