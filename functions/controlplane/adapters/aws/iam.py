"""IAM roles the control plane creates for clusters."""

from __future__ import annotations

import json

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, tag_dict, tag_list
from controlplane.core.ports import IamRole


class AwsIamGateway:
    def find_role(self, name: str) -> IamRole | None:
        iam = client("iam")
        try:
            role = iam.get_role(RoleName=name)["Role"]
        except ClientError as error:
            if error_code(error) == "NoSuchEntity":
                return None
            raise
        attached = iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]
        return IamRole(
            name=name,
            arn=role["Arn"],
            tags=tag_dict(iam.list_role_tags(RoleName=name)["Tags"]),
            attached_policy_arns=frozenset(policy["PolicyArn"] for policy in attached),
        )

    def create_role(self, name: str, service_principal: str, tags: dict[str, str]) -> IamRole:
        trust = {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": service_principal}, "Action": "sts:AssumeRole"}],
        }
        role = client("iam").create_role(
            RoleName=name, AssumeRolePolicyDocument=json.dumps(trust), Tags=tag_list(tags)
        )["Role"]
        return IamRole(name=name, arn=role["Arn"], tags=tags)

    def attach_policy(self, role_name: str, policy_arn: str) -> None:
        client("iam").attach_role_policy(RoleName=role_name, PolicyArn=policy_arn)

    def delete_role(self, name: str) -> None:
        iam = client("iam")
        try:
            for policy in iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]:
                iam.detach_role_policy(RoleName=name, PolicyArn=policy["PolicyArn"])
            for policy_name in iam.list_role_policies(RoleName=name)["PolicyNames"]:
                iam.delete_role_policy(RoleName=name, PolicyName=policy_name)
            iam.delete_role(RoleName=name)
        except ClientError as error:
            if error_code(error) != "NoSuchEntity":
                raise
