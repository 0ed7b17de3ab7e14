"""What the simulated account holds, as identifiers by kind: taken before the soak and after it, the difference is
what the soak's clusters left behind, whoever made it. Read with the AWS APIs a person would use to look (and the
Kubernetes emulator's list of API servers); nothing here knows how the control plane names things."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import boto3

from sandbox.runtime import Sandbox

Snapshot = dict[str, set[str]]

GONE_EC2 = ("deleted", "deleting", "failed")


def snapshot(sandbox: Sandbox, regions: Iterable[str], home_region: str) -> Snapshot:
    """Every resource of the kinds the control plane creates, in `regions` (IAM and S3 once, DynamoDB's items and
    Step Functions' running executions in the home Region)."""
    found: Snapshot = {}
    for region in regions:
        for kind, ids in _regional(region).items():
            found[f"{region} {kind}"] = ids
    found |= _global()
    found |= _control_plane(home_region)
    found["kubernetes api servers"] = set(sandbox.emulator.clusters())
    return found


def added(before: Snapshot, after: Snapshot) -> dict[str, list[str]]:
    """What `after` holds that `before` did not, by kind."""
    return {kind: sorted(ids - before.get(kind, set())) for kind, ids in after.items() if ids - before.get(kind, set())}


def _regional(region: str) -> Snapshot:
    ec2 = boto3.client("ec2", region_name=region)
    eks = boto3.client("eks", region_name=region)
    sagemaker = boto3.client("sagemaker", region_name=region)
    return {
        "VPC": _ids(ec2.describe_vpcs()["Vpcs"], "VpcId"),
        "subnet": _ids(ec2.describe_subnets()["Subnets"], "SubnetId"),
        "internet gateway": _ids(ec2.describe_internet_gateways()["InternetGateways"], "InternetGatewayId"),
        "NAT gateway": _ids(
            [g for g in ec2.describe_nat_gateways()["NatGateways"] if g["State"] not in GONE_EC2], "NatGatewayId"
        ),
        "Elastic IP": _ids(ec2.describe_addresses()["Addresses"], "AllocationId"),
        "route table": _ids(ec2.describe_route_tables()["RouteTables"], "RouteTableId"),
        "security group": _ids(ec2.describe_security_groups()["SecurityGroups"], "GroupId"),
        "VPC endpoint": _ids(
            [e for e in ec2.describe_vpc_endpoints()["VpcEndpoints"] if e["State"].lower() not in GONE_EC2],
            "VpcEndpointId",
        ),
        "network interface": {
            f"{eni['NetworkInterfaceId']} ({eni.get('Description') or eni.get('InterfaceType')})"
            for eni in ec2.describe_network_interfaces()["NetworkInterfaces"]
        },
        "EKS cluster": set(eks.list_clusters()["clusters"]),
        "HyperPod cluster": _ids(sagemaker.list_clusters()["ClusterSummaries"], "ClusterName"),
        "SageMaker endpoint": _ids(sagemaker.list_endpoints()["Endpoints"], "EndpointName"),
        "FSx file system": _ids(
            [f for f in _fsx(region) if f["Lifecycle"] not in ("DELETING", "DELETED")], "FileSystemId"
        ),
        "Prometheus workspace": _ids(
            [
                w
                for w in boto3.client("amp", region_name=region).list_workspaces()["workspaces"]
                if w["status"]["statusCode"] not in ("DELETING",)
            ],
            "workspaceId",
        ),
        "EventBridge rule": _ids(boto3.client("events", region_name=region).list_rules()["Rules"], "Name"),
    }


def _fsx(region: str) -> list[dict[str, Any]]:
    pages = boto3.client("fsx", region_name=region).get_paginator("describe_file_systems").paginate()
    return [system for page in pages for system in page["FileSystems"]]


def _global() -> Snapshot:
    iam = boto3.client("iam")
    return {
        "IAM role": _paged(iam, "list_roles", "Roles", "RoleName"),
        "IAM policy": _paged(iam, "list_policies", "Policies", "Arn", Scope="Local"),
        "IAM instance profile": _paged(iam, "list_instance_profiles", "InstanceProfiles", "InstanceProfileName"),
        "IAM OIDC provider": _ids(iam.list_open_id_connect_providers()["OpenIDConnectProviderList"], "Arn"),
        "S3 bucket": _ids(boto3.client("s3").list_buckets()["Buckets"], "Name"),
    }


def _control_plane(region: str) -> Snapshot:
    """The control plane's own records: every DynamoDB item (by table and key) and every running execution."""
    dynamodb = boto3.client("dynamodb", region_name=region)
    found: Snapshot = {}
    for table in dynamodb.list_tables()["TableNames"]:
        keys = [key["AttributeName"] for key in dynamodb.describe_table(TableName=table)["Table"]["KeySchema"]]
        items = _scan(dynamodb, table)
        found[f"table {table}"] = {"/".join(_value(item[key]) for key in keys) for item in items}
    stepfunctions = boto3.client("stepfunctions", region_name=region)
    found["running execution"] = {
        execution["name"]
        for machine in stepfunctions.list_state_machines()["stateMachines"]
        for page in stepfunctions.get_paginator("list_executions").paginate(
            stateMachineArn=machine["stateMachineArn"], statusFilter="RUNNING"
        )
        for execution in page["executions"]
    }
    return found


def _scan(dynamodb: Any, table: str) -> list[dict[str, Any]]:
    return [item for page in dynamodb.get_paginator("scan").paginate(TableName=table) for item in page["Items"]]


def _value(attribute: dict[str, Any]) -> str:
    (value,) = attribute.values()
    return str(value)


def _paged(client: Any, method: str, key: str, field: str, **arguments: Any) -> set[str]:
    return {entry[field] for page in client.get_paginator(method).paginate(**arguments) for entry in page[key]}


def _ids(entries: Iterable[dict[str, Any]], field: str) -> set[str]:
    return {str(entry[field]) for entry in entries}
