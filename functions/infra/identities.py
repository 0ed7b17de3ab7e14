"""The identities the stack's functions act as, beyond each function's own role: the REST API's and the remote MCP
server's roles (granted by their parts), and the Kubernetes access roles every cluster's access entries name. The
access roles have fixed names (`infra.names`), so that the steps' nested stack and the steps' access entries name
them without a reference; what they may do in AWS is `infra.access.kubernetes`, in Kubernetes their access entries'.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import CfnOutput, Duration, Stack
from aws_cdk import aws_iam as iam
from constructs import Construct

from infra.access.kubernetes import KUBERNETES_ROLE_GRANTS
from infra.grants import add_grants
from infra.lambdas import lambda_role
from infra.nag import Acknowledgements
from infra.names import deployment_name, kubernetes_jobs_role_name, kubernetes_role_name, kubernetes_view_role_name
from infra.parts import Part

SESSION = Duration.hours(1)


class Identities(Part):
    """`api_role`, `mcp_role`; `kubernetes_role` (cluster admin, trusted by `step_roles`), `kubernetes_view_role`
    (view only) and `kubernetes_jobs_role` (job objects only), the last two trusted by the API."""

    def __init__(
        self, scope: Construct, construct_id: str, *, step_roles: Sequence[iam.IRole], acks: Acknowledgements
    ) -> None:
        super().__init__(scope, construct_id)
        self._acks = acks
        deployment = deployment_name(self)
        # The API's role before the Kubernetes view and jobs roles, which trust it; the MCP server's before the API
        # function, which recognises it (its `mcp_role_arn` setting) as the one delegating caller.
        self.api_role = lambda_role(self, "ApiRole", "REST API")
        # Signs the steps' EKS bearer tokens; clusters make it cluster admin through access entries. Trusted by the
        # step groups that assume it, never by the API.
        self.kubernetes_role = self._kubernetes_role(
            "KubernetesAccessRole",
            kubernetes_role_name(deployment),
            iam.CompositePrincipal(*step_roles),
            "EKS access-entry principal (cluster admin), assumed by Kubernetes-calling steps",
        )
        # Signs the internet-facing API's EKS bearer tokens; every cluster's access entry for it holds
        # AmazonEKSViewPolicy only, so the API reads nodes and pods and can write nothing.
        self.kubernetes_view_role = self._kubernetes_role(
            "KubernetesViewRole",
            kubernetes_view_role_name(deployment),
            self.api_role,
            "EKS access-entry principal (view only), assumed by the REST API",
        )
        # Signs the API's job writes; every cluster's access entry for it names only the job writers' group, whose
        # RBAC allows creating, reading and deleting job objects.
        self.kubernetes_jobs_role = self._kubernetes_role(
            "KubernetesJobsRole",
            kubernetes_jobs_role_name(deployment),
            self.api_role,
            "EKS access-entry principal (job objects only, by RBAC), assumed by the REST API",
        )
        self.mcp_role = lambda_role(self, "McpRole", "remote MCP server")
        CfnOutput(Stack.of(self), "KubernetesAccessRoleArn", value=self.kubernetes_role.role_arn)
        CfnOutput(Stack.of(self), "KubernetesViewRoleArn", value=self.kubernetes_view_role.role_arn)

    def _kubernetes_role(
        self, construct_id: str, role_name: str, trusted: iam.IPrincipal, description: str
    ) -> iam.Role:
        role = iam.Role(
            self,
            construct_id,
            role_name=role_name,
            assumed_by=trusted,
            description=f"InstantStart: {description}",
            max_session_duration=SESSION,
        )
        add_grants(role, KUBERNETES_ROLE_GRANTS, {}, self._acks)
        return role
