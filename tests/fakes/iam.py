"""IAM roles (trust, tags, boundary, attached and inline policies), customer managed policies and OIDC providers."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any

from controlplane.core.ports.iam import IamRole, ManagedPolicy

ACCOUNT = "123456789012"


@dataclass
class StoredRole:
    role: IamRole
    trust: dict[str, Any]
    boundary_arn: str
    inline: dict[str, dict[str, Any]] = field(default_factory=dict)


class InMemoryIamGateway:
    """Documents are stored and returned as copies (IAM keeps its own JSON); creating a role, policy or OIDC provider
    that exists fails (EntityAlreadyExists, which the adapter does not catch); deleting what is absent is fine."""

    def __init__(self) -> None:
        self.roles: dict[str, StoredRole] = {}
        self.policies: dict[str, tuple[ManagedPolicy, dict[str, Any]]] = {}
        self.oidc_providers: dict[str, dict[str, str]] = {}

    # --- roles -------------------------------------------------------------------------------

    def find_role(self, name: str) -> IamRole | None:
        stored = self.roles.get(name)
        return replace(stored.role, trust=copy.deepcopy(stored.trust)) if stored else None

    def create_role(self, name: str, trust_policy: dict[str, Any], tags: dict[str, str], boundary_arn: str) -> IamRole:
        if name in self.roles:
            raise ValueError(f"EntityAlreadyExists: role {name}")
        role = IamRole(name=name, arn=f"arn:aws:iam::{ACCOUNT}:role/{name}", tags=dict(tags))
        self.roles[name] = StoredRole(role=role, trust=copy.deepcopy(trust_policy), boundary_arn=boundary_arn)
        return role

    def attach_policy(self, role_name: str, policy_arn: str) -> None:
        stored = self.roles[role_name]
        stored.role = replace(stored.role, attached_policy_arns=stored.role.attached_policy_arns | {policy_arn})

    def role_policy(self, role_name: str, policy_name: str) -> dict[str, Any] | None:
        stored = self.roles.get(role_name)
        return copy.deepcopy(stored.inline.get(policy_name)) if stored else None

    def put_role_policy(self, role_name: str, policy_name: str, document: dict[str, Any]) -> None:
        self.roles[role_name].inline[policy_name] = copy.deepcopy(document)

    def delete_role(self, name: str) -> None:
        self.roles.pop(name, None)

    # --- OIDC providers ----------------------------------------------------------------------

    def list_oidc_providers(self) -> list[str]:
        return list(self.oidc_providers)

    def find_oidc_provider(self, issuer_url: str) -> str | None:
        arn = _provider_arn(issuer_url)
        return arn if arn in self.oidc_providers else None

    def create_oidc_provider(self, issuer_url: str, tags: dict[str, str]) -> str:
        arn = _provider_arn(issuer_url)
        if arn in self.oidc_providers:
            raise ValueError(f"EntityAlreadyExists: OIDC provider {issuer_url}")
        self.oidc_providers[arn] = dict(tags)
        return arn

    def oidc_provider_tags(self, arn: str) -> dict[str, str]:
        return dict(self.oidc_providers.get(arn, {}))

    def delete_oidc_provider(self, arn: str) -> None:
        self.oidc_providers.pop(arn, None)

    # --- customer managed policies -----------------------------------------------------------

    def find_policy(self, arn: str) -> ManagedPolicy | None:
        stored = self.policies.get(arn)
        if stored is None:
            return None
        attachments = sum(1 for role in self.roles.values() if arn in role.role.attached_policy_arns)
        return replace(stored[0], attachments=attachments)

    def create_policy(self, name: str, document: dict[str, Any], tags: dict[str, str]) -> str:
        arn = f"arn:aws:iam::{ACCOUNT}:policy/{name}"
        if arn in self.policies:
            raise ValueError(f"EntityAlreadyExists: policy {name}")
        self.policies[arn] = (
            ManagedPolicy(name=name, arn=arn, tags=dict(tags), attachments=0),
            copy.deepcopy(document),
        )
        return arn

    def delete_policy(self, arn: str) -> None:
        self.policies.pop(arn, None)

    def policy_document(self, arn: str) -> dict[str, Any] | None:
        """For tests: the document a customer managed policy was created with."""
        stored = self.policies.get(arn)
        return copy.deepcopy(stored[1]) if stored else None


def _provider_arn(issuer_url: str) -> str:
    return f"arn:aws:iam::{ACCOUNT}:oidc-provider/{issuer_url.removeprefix('https://')}"
