"""IAM roles, inline policies and OIDC providers the control plane creates for clusters."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, partition_dns_suffix, tag_dict, tag_list
from controlplane.core.identity import check_trust_policy
from controlplane.core.ports.iam import IamRole, ManagedPolicy


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
            trust=_document(role["AssumeRolePolicyDocument"]),
        )

    def create_role(self, name: str, trust_policy: dict[str, Any], tags: dict[str, str], boundary_arn: str) -> IamRole:
        # The boundary is one of the stack's own policies: its partition and account are the control plane's.
        partition, account = boundary_arn.split(":")[1], boundary_arn.split(":")[4]
        check_trust_policy(trust_policy, account, partition, partition_dns_suffix(partition))
        role = client("iam").create_role(
            RoleName=name,
            AssumeRolePolicyDocument=json.dumps(trust_policy),
            Tags=tag_list(tags),
            PermissionsBoundary=boundary_arn,
        )["Role"]
        return IamRole(name=name, arn=role["Arn"], tags=tags)

    def attach_policy(self, role_name: str, policy_arn: str) -> None:
        client("iam").attach_role_policy(RoleName=role_name, PolicyArn=policy_arn)

    def role_policy(self, role_name: str, policy_name: str) -> dict[str, Any] | None:
        try:
            document = client("iam").get_role_policy(RoleName=role_name, PolicyName=policy_name)["PolicyDocument"]
        except ClientError as error:
            if error_code(error) == "NoSuchEntity":
                return None
            raise
        return _document(document)

    def put_role_policy(self, role_name: str, policy_name: str, document: dict[str, Any]) -> None:
        client("iam").put_role_policy(RoleName=role_name, PolicyName=policy_name, PolicyDocument=json.dumps(document))

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

    def list_oidc_providers(self) -> list[str]:
        return [str(p["Arn"]) for p in client("iam").list_open_id_connect_providers()["OpenIDConnectProviderList"]]

    def find_oidc_provider(self, issuer_url: str) -> str | None:
        wanted = issuer_url.removeprefix("https://")
        return next((arn for arn in self.list_oidc_providers() if arn.split(":oidc-provider/", 1)[-1] == wanted), None)

    def create_oidc_provider(self, issuer_url: str, tags: dict[str, str]) -> str:
        # No thumbprint: IAM obtains and trusts the EKS issuer's CA itself.
        response = client("iam").create_open_id_connect_provider(
            Url=issuer_url, ClientIDList=["sts.amazonaws.com"], Tags=tag_list(tags)
        )
        return str(response["OpenIDConnectProviderArn"])

    def oidc_provider_tags(self, arn: str) -> dict[str, str]:
        try:
            tags = client("iam").list_open_id_connect_provider_tags(OpenIDConnectProviderArn=arn)["Tags"]
        except ClientError as error:
            if error_code(error) != "NoSuchEntity":
                raise
            return {}
        return tag_dict(tags)

    def delete_oidc_provider(self, arn: str) -> None:
        try:
            client("iam").delete_open_id_connect_provider(OpenIDConnectProviderArn=arn)
        except ClientError as error:
            if error_code(error) != "NoSuchEntity":
                raise

    def find_policy(self, arn: str) -> ManagedPolicy | None:
        iam = client("iam")
        try:
            policy = iam.get_policy(PolicyArn=arn)["Policy"]
        except ClientError as error:
            if error_code(error) == "NoSuchEntity":
                return None
            raise
        return ManagedPolicy(
            name=policy["PolicyName"],
            arn=policy["Arn"],
            tags=tag_dict(iam.list_policy_tags(PolicyArn=arn)["Tags"]),
            attachments=int(policy.get("AttachmentCount", 0)),
        )

    def create_policy(self, name: str, document: dict[str, Any], tags: dict[str, str]) -> str:
        response = client("iam").create_policy(
            PolicyName=name, PolicyDocument=json.dumps(document), Tags=tag_list(tags)
        )
        return str(response["Policy"]["Arn"])

    def delete_policy(self, arn: str) -> None:
        iam = client("iam")
        try:
            for version in iam.list_policy_versions(PolicyArn=arn)["Versions"]:
                if not version["IsDefaultVersion"]:
                    iam.delete_policy_version(PolicyArn=arn, VersionId=version["VersionId"])
            iam.delete_policy(PolicyArn=arn)
        except ClientError as error:
            if error_code(error) != "NoSuchEntity":
                raise


def _document(document: str | dict[str, Any]) -> dict[str, Any]:
    """A policy document as IAM returns it (URL-encoded JSON, or parsed by botocore)."""
    return json.loads(unquote(document)) if isinstance(document, str) else dict(document)
