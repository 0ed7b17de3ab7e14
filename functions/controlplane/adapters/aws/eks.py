"""EKS control planes and access entries."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, partition
from controlplane.core.ports.eks import AccessEntryState, Addon, AddonIssue, EksCluster

# HyperPod refuses clusters in the EKS API default mode (CONFIG_MAP).
AUTHENTICATION_MODE = "API_AND_CONFIG_MAP"
CONTROL_PLANE_LOG_TYPES = ["api", "audit", "authenticator", "controllerManager", "scheduler"]


def _cluster(data: dict[str, Any]) -> EksCluster:
    vpc = data.get("resourcesVpcConfig") or {}
    return EksCluster(
        name=data["name"],
        arn=data["arn"],
        status=data["status"],
        version=data.get("version"),
        endpoint=data.get("endpoint"),
        certificate_authority=(data.get("certificateAuthority") or {}).get("data"),
        oidc_issuer=((data.get("identity") or {}).get("oidc") or {}).get("issuer"),
        authentication_mode=(data.get("accessConfig") or {}).get("authenticationMode"),
        tags=data.get("tags") or {},
        vpc_id=vpc.get("vpcId"),
        subnet_ids=tuple(vpc.get("subnetIds") or ()),
        security_group_ids=tuple(vpc.get("securityGroupIds") or ()),
        cluster_security_group_id=vpc.get("clusterSecurityGroupId"),
        endpoint_public_access=bool(vpc.get("endpointPublicAccess", True)),
        public_access_cidrs=tuple(vpc.get("publicAccessCidrs", ["0.0.0.0/0"])),
    )


class AwsEksGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def find_cluster(self, name: str) -> EksCluster | None:
        try:
            return _cluster(client("eks", self._region).describe_cluster(name=name)["cluster"])
        except ClientError as error:
            if error_code(error) == "ResourceNotFoundException":
                return None
            raise

    def create_cluster(
        self,
        name: str,
        version: str,
        role_arn: str,
        subnet_ids: list[str],
        security_group_ids: list[str],
        tags: dict[str, str],
    ) -> EksCluster:
        response = client("eks", self._region).create_cluster(
            name=name,
            version=version,
            roleArn=role_arn,
            resourcesVpcConfig={
                "subnetIds": subnet_ids,
                "securityGroupIds": security_group_ids,
                "endpointPublicAccess": True,
                "endpointPrivateAccess": True,
            },
            accessConfig={"authenticationMode": AUTHENTICATION_MODE, "bootstrapClusterCreatorAdminPermissions": False},
            logging={"clusterLogging": [{"types": CONTROL_PLANE_LOG_TYPES, "enabled": True}]},
            tags=tags,
        )
        return _cluster(response["cluster"])

    def delete_cluster(self, name: str) -> None:
        try:
            client("eks", self._region).delete_cluster(name=name)
        except ClientError as error:
            if error_code(error) != "ResourceNotFoundException":
                raise

    def access_entry(self, cluster_name: str, principal_arn: str) -> AccessEntryState | None:
        eks = client("eks", self._region)
        try:
            entry = eks.describe_access_entry(clusterName=cluster_name, principalArn=principal_arn)["accessEntry"]
        except ClientError as error:
            if error_code(error) == "ResourceNotFoundException":
                return None
            raise
        policies = eks.list_associated_access_policies(clusterName=cluster_name, principalArn=principal_arn)
        return AccessEntryState(
            policies=frozenset(policy["policyArn"] for policy in policies["associatedAccessPolicies"]),
            groups=tuple(entry.get("kubernetesGroups") or ()),
        )

    def update_access_entry_groups(self, cluster_name: str, principal_arn: str, groups: tuple[str, ...]) -> None:
        client("eks", self._region).update_access_entry(
            clusterName=cluster_name, principalArn=principal_arn, kubernetesGroups=list(groups)
        )

    def create_access_entry(
        self, cluster_name: str, principal_arn: str, tags: dict[str, str], groups: tuple[str, ...] = ()
    ) -> None:
        try:
            client("eks", self._region).create_access_entry(
                clusterName=cluster_name,
                principalArn=principal_arn,
                type="STANDARD",
                tags=tags,
                **({"kubernetesGroups": list(groups)} if groups else {}),
            )
        except ClientError as error:
            if error_code(error) != "ResourceInUseException":
                raise

    def associate_access_policy(self, cluster_name: str, principal_arn: str, policy: str) -> None:
        client("eks", self._region).associate_access_policy(
            clusterName=cluster_name,
            principalArn=principal_arn,
            policyArn=f"arn:{partition(self._region)}:eks::aws:cluster-access-policy/{policy}",
            accessScope={"type": "cluster"},
        )

    def access_entry_tags(self, cluster_name: str, principal_arn: str) -> dict[str, str] | None:
        try:
            entry = client("eks", self._region).describe_access_entry(
                clusterName=cluster_name, principalArn=principal_arn
            )["accessEntry"]
        except ClientError as error:
            if error_code(error) == "ResourceNotFoundException":
                return None
            raise
        return dict(entry.get("tags") or {})

    def delete_access_entry(self, cluster_name: str, principal_arn: str) -> None:
        try:
            client("eks", self._region).delete_access_entry(clusterName=cluster_name, principalArn=principal_arn)
        except ClientError as error:
            if error_code(error) != "ResourceNotFoundException":
                raise

    def tag_cluster(self, cluster_arn: str, tags: dict[str, str]) -> None:
        client("eks", self._region).tag_resource(resourceArn=cluster_arn, tags=tags)

    def untag_cluster(self, cluster_arn: str, keys: list[str]) -> None:
        client("eks", self._region).untag_resource(resourceArn=cluster_arn, tagKeys=keys)

    def find_addon(self, cluster_name: str, addon_name: str) -> Addon | None:
        try:
            addon = client("eks", self._region).describe_addon(clusterName=cluster_name, addonName=addon_name)["addon"]
        except ClientError as error:
            if error_code(error) == "ResourceNotFoundException":
                return None
            raise
        issues = tuple(
            AddonIssue(str(issue.get("code")), str(issue.get("message")))
            for issue in addon.get("health", {}).get("issues", [])
        )
        return Addon(
            name=addon_name,
            status=addon["status"],
            version=addon.get("addonVersion"),
            issues=issues,
            tags=dict(addon.get("tags") or {}),
            configuration=addon.get("configurationValues"),
        )

    def addon_versions(self, addon_name: str, kubernetes_version: str) -> list[str]:
        pages = client("eks", self._region).get_paginator("describe_addon_versions")
        return [
            version["addonVersion"]
            for page in pages.paginate(addonName=addon_name, kubernetesVersion=kubernetes_version)
            for info in page["addons"]
            if info["addonName"] == addon_name
            for version in info["addonVersions"]
            if any(c.get("clusterVersion") == kubernetes_version for c in version.get("compatibilities") or [])
        ]

    def create_addon(
        self,
        cluster_name: str,
        addon_name: str,
        version: str,
        role_arn: str | None,
        tags: dict[str, str],
        *,
        configuration: str | None = None,
        pod_identities: dict[str, str] | None = None,
    ) -> Addon:
        request: dict[str, Any] = {
            "clusterName": cluster_name,
            "addonName": addon_name,
            "addonVersion": version,
            "resolveConflicts": "OVERWRITE",
            "tags": tags,
        }
        if role_arn:
            request["serviceAccountRoleArn"] = role_arn
        if configuration:
            request["configurationValues"] = configuration
        if pod_identities:
            request["podIdentityAssociations"] = [
                {"serviceAccount": account, "roleArn": arn} for account, arn in pod_identities.items()
            ]
        try:
            addon = client("eks", self._region).create_addon(**request)["addon"]
        except ClientError as error:
            if error_code(error) != "ResourceInUseException":
                raise
            found = self.find_addon(cluster_name, addon_name)
            if found is None:
                raise
            return found
        return Addon(name=addon_name, status=addon["status"], version=addon.get("addonVersion"), tags=tags)

    def delete_addon(self, cluster_name: str, addon_name: str) -> None:
        try:
            client("eks", self._region).delete_addon(clusterName=cluster_name, addonName=addon_name)
        except ClientError as error:
            if error_code(error) != "ResourceNotFoundException":
                raise

    def pod_identity_role(self, cluster_name: str, namespace: str, service_account: str) -> str | None:
        eks = client("eks", self._region)
        associations = eks.list_pod_identity_associations(
            clusterName=cluster_name, namespace=namespace, serviceAccount=service_account
        )["associations"]
        if not associations:
            return None
        association = eks.describe_pod_identity_association(
            clusterName=cluster_name, associationId=associations[0]["associationId"]
        )["association"]
        return str(association["roleArn"])

    def create_pod_identity_association(
        self, cluster_name: str, namespace: str, service_account: str, role_arn: str, tags: dict[str, str]
    ) -> None:
        client("eks", self._region).create_pod_identity_association(
            clusterName=cluster_name, namespace=namespace, serviceAccount=service_account, roleArn=role_arn, tags=tags
        )

    def delete_pod_identity_association(self, cluster_name: str, namespace: str, service_account: str) -> None:
        eks = client("eks", self._region)
        associations = eks.list_pod_identity_associations(
            clusterName=cluster_name, namespace=namespace, serviceAccount=service_account
        )["associations"]
        for association in associations:
            try:
                eks.delete_pod_identity_association(
                    clusterName=cluster_name, associationId=association["associationId"]
                )
            except ClientError as error:
                if error_code(error) != "ResourceNotFoundException":
                    raise
