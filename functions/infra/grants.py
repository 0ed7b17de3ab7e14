"""IAM policy statements from the declared grants (`controlplane.access`): one statement per `Grant`, each
wildcard resource acknowledged for cdk-nag with the grant's own reason (prefixed by its actions), DynamoDB access
per named table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import Aws
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam

from controlplane.access.grant import DYNAMODB_ACTIONS, FunctionAccess, Grant
from controlplane.adapters.aws.tables import TABLES
from infra.nag import Acknowledgements
from infra.names import deployment_name
from infra.rendering import render_conditions, render_resources


def add_grants(role: iam.Role, grants: tuple[Grant, ...], values: Mapping[str, Any], acks: Acknowledgements) -> None:
    """Render each grant's resource and condition templates with `values` (plus the pseudo parameters and the
    deployment name).

    Grants on Resource "*" (actions without resource-level permissions) go to the role's own `<role>Unscoped`
    policy, a sibling of the role acknowledged for AwsSolutions-IAM5[Resource::*] alone: the role itself carries
    no such acknowledgement, so a new statement on "*" in its default policy is a cdk-nag finding."""
    pseudo = {"partition": Aws.PARTITION, "account": Aws.ACCOUNT_ID, "region": Aws.REGION, "url_suffix": Aws.URL_SUFFIX}
    values = {**pseudo, "deployment": deployment_name(role), **values}
    for grant in grants:
        resources = render_resources(grant, values)
        statement = iam.PolicyStatement(actions=list(grant.actions), resources=resources)
        for operator, keys in render_conditions(grant, values).items():
            statement.add_condition(operator, keys)
        if "*" in resources:
            policy = unscoped_policy(role)
            policy.add_statements(statement)
            acks.wildcard_resources(policy, grant.actions, resources, grant.reason)
        else:
            role.add_to_policy(statement)
            acks.wildcard_resources(role, grant.actions, resources, grant.reason)


def unscoped_policy(role: iam.Role) -> iam.Policy:
    """The policy holding a role's grants on Resource "*"; created on first use, beside the role."""
    scope = role.node.scope
    assert scope is not None
    construct_id = f"{role.node.id}Unscoped"
    existing = scope.node.try_find_child(construct_id)
    if isinstance(existing, iam.Policy):
        return existing
    return iam.Policy(scope, construct_id, roles=[role])


def add_table_grants(role: iam.Role, access: FunctionAccess, tables: Mapping[str, dynamodb.ITable]) -> None:
    """Item-level access to the tables the function names, and to their indexes."""
    resources: list[str] = []
    specs = {spec.setting: spec for spec in TABLES}
    for setting in access.tables:
        table_arn = tables[setting].table_arn
        resources.append(table_arn)
        resources.extend(f"{table_arn}/index/{index.name}" for index in specs[setting].indexes)
    role.add_to_policy(iam.PolicyStatement(actions=list(DYNAMODB_ACTIONS), resources=resources))
