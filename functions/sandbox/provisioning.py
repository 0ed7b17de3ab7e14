"""What `cdk deploy` creates in AWS, created in the sandbox's account: the tables (`TABLES`), the Kubernetes
identities, the permissions boundaries, the event forwarding role and one state machine per workflow, named as the
stack names them (`controlplane.core.naming`). The result is the settings that name them to the functions
(`controlplane.settings.Settings` fields); the boundaries here are simpler than the stack's.
"""

from __future__ import annotations

import json
from typing import Any

import boto3

from controlplane.adapters.aws.tables import TABLES, TableSpec
from controlplane.core.naming import (
    Deployment,
    event_forwarding_role_name,
    kubernetes_jobs_role_name,
    kubernetes_role_name,
    kubernetes_view_role_name,
    state_machine_name,
)
from controlplane.models.operations import OperationKind
from controlplane.workflows import definition_text, placeholders, substitute

Statement = dict[str, Any]


def provision(deployment: Deployment, account: str, steps_function_arn: str) -> dict[str, object]:
    """Create the control plane's resources; every workflow Task runs `steps_function_arn` (the sandbox serves each
    step from one function: the payload's `step` says which)."""
    return {
        **{spec.setting: _table(deployment, spec) for spec in TABLES},
        **_identities(deployment, account),
        "state_machine_arns": _state_machines(deployment, account, steps_function_arn),
    }


def _table(deployment: Deployment, spec: TableSpec) -> str:
    name = f"{deployment.name}-{spec.logical_name.lower()}"
    keys = {spec.partition_key} | {k for k in (spec.sort_key,) if k}
    keys |= {a for index in spec.indexes for a in (index.partition_key, index.sort_key) if a}
    request: dict[str, Any] = {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": key, "AttributeType": "S"} for key in sorted(keys)],
        "KeySchema": _key_schema(spec.partition_key, spec.sort_key),
    }
    if spec.indexes:
        request["GlobalSecondaryIndexes"] = [
            {
                "IndexName": index.name,
                "KeySchema": _key_schema(index.partition_key, index.sort_key),
                "Projection": {"ProjectionType": "ALL"},
            }
            for index in spec.indexes
        ]
    boto3.client("dynamodb", region_name=deployment.region).create_table(**request)
    return name


def _identities(deployment: Deployment, account: str) -> dict[str, object]:
    iam = boto3.client("iam", region_name=deployment.region)
    account_root = _trust({"AWS": f"arn:{deployment.partition}:iam::{account}:root"})

    def role(name: str, trust: str = account_root) -> str:
        return str(iam.create_role(RoleName=name, AssumeRolePolicyDocument=trust)["Role"]["Arn"])

    def boundary(kind: str, *statements: Statement) -> str:
        document = json.dumps({"Version": "2012-10-17", "Statement": list(statements)})
        policy = iam.create_policy(PolicyName=f"{deployment.name}-{kind}-role-boundary", PolicyDocument=document)
        return str(policy["Policy"]["Arn"])

    clusters = f"arn:{deployment.partition}:sagemaker:*:{account}:cluster/*"
    return {
        "kubernetes_role_arn": role(kubernetes_role_name(deployment)),
        "kubernetes_view_role_arn": role(kubernetes_view_role_name(deployment)),
        "kubernetes_jobs_role_arn": role(kubernetes_jobs_role_name(deployment)),
        "workload_role_boundary_arn": boundary("workload", _allow(["s3:GetObject", "s3:PutObject"], "*")),
        "autoscaling_role_boundary_arn": boundary(
            "autoscaling", _allow(["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"], clusters)
        ),
        "service_role_boundary_arn": boundary("service", _allow("*", "*")),
        "event_forwarding_role_arn": role(
            event_forwarding_role_name(deployment), _trust({"Service": "events.amazonaws.com"})
        ),
    }


def _state_machines(deployment: Deployment, account: str, steps_function_arn: str) -> dict[str, str]:
    iam = boto3.client("iam", region_name=deployment.region)
    trust = _trust({"AWS": f"arn:{deployment.partition}:iam::{account}:root"})
    role = iam.create_role(RoleName=f"{deployment.name}-workflows", AssumeRolePolicyDocument=trust)
    stepfunctions = boto3.client("stepfunctions", region_name=deployment.region)
    machines = {}
    for kind in OperationKind:
        text = definition_text(kind)
        values = {placeholder: steps_function_arn for placeholder in placeholders(text)}
        machines[kind.value] = stepfunctions.create_state_machine(
            name=state_machine_name(deployment.name, kind),
            definition=substitute(text, values, partition=deployment.partition),
            roleArn=role["Role"]["Arn"],
            type="STANDARD",
        )["stateMachineArn"]
    return machines


def _allow(actions: str | list[str], resource: str) -> Statement:
    return {"Effect": "Allow", "Action": actions, "Resource": resource}


def _trust(principal: dict[str, str]) -> str:
    statement = {"Effect": "Allow", "Principal": principal, "Action": "sts:AssumeRole"}
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def _key_schema(partition: str, sort: str | None) -> list[dict[str, str]]:
    schema = [{"AttributeName": partition, "KeyType": "HASH"}]
    if sort:
        schema.append({"AttributeName": sort, "KeyType": "RANGE"})
    return schema
