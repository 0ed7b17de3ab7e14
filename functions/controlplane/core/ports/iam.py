"""IAM roles, policies and OIDC providers the steps create."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class RoleBoundaries:
    """The permissions boundaries the roles the control plane creates carry (the stack's managed policies): workload
    roles with their own policies, HyperPod autoscaling's cluster role, and the roles AWS services and operators
    assume with AWS managed policies attached."""

    workload: str
    autoscaling: str
    service: str


@dataclass(frozen=True)
class IamRole:
    name: str
    arn: str
    tags: dict[str, str]
    attached_policy_arns: frozenset[str] = frozenset()
    trust: dict[str, Any] | None = None


@dataclass(frozen=True)
class ManagedPolicy:
    name: str
    arn: str
    tags: dict[str, str]
    attachments: int


class IamGateway(Protocol):
    def find_role(self, name: str) -> IamRole | None: ...

    def create_role(self, name: str, trust_policy: dict[str, Any], tags: dict[str, str], boundary_arn: str) -> IamRole:
        """Create the role within one of the stack's permissions boundaries, after checking its trust policy
        (`controlplane.core.identity.check_trust_policy`)."""

    def attach_policy(self, role_name: str, policy_arn: str) -> None: ...

    def role_policy(self, role_name: str, policy_name: str) -> dict[str, Any] | None:
        """The role's inline policy document, or None."""

    def put_role_policy(self, role_name: str, policy_name: str, document: dict[str, Any]) -> None: ...

    def list_oidc_providers(self) -> list[str]: ...

    def find_oidc_provider(self, issuer_url: str) -> str | None:
        """ARN of the IAM OIDC provider for an issuer URL, or None."""

    def create_oidc_provider(self, issuer_url: str, tags: dict[str, str]) -> str: ...

    def oidc_provider_tags(self, arn: str) -> dict[str, str]:
        """The provider's tags; none once it is gone (another cluster's deletion may remove a listed one)."""

    def delete_oidc_provider(self, arn: str) -> None: ...

    def delete_role(self, name: str) -> None:
        """Detach managed policies, delete inline policies, then delete the role."""

    def find_policy(self, arn: str) -> ManagedPolicy | None:
        """The customer managed policy, or None."""

    def create_policy(self, name: str, document: dict[str, Any], tags: dict[str, str]) -> str:
        """Create a customer managed policy; returns its ARN."""

    def delete_policy(self, arn: str) -> None:
        """Delete the policy (its non-default versions first); absent is fine."""
