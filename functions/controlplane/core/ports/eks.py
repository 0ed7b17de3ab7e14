"""EKS clusters and their add-ons, access entries and pod identity associations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from controlplane.core.identity import ADMIN_ACCESS_POLICY, VIEW_ACCESS_POLICY


@dataclass(frozen=True)
class EksCluster:
    name: str
    arn: str
    status: str
    version: str | None
    endpoint: str | None
    certificate_authority: str | None
    oidc_issuer: str | None
    authentication_mode: str | None
    tags: dict[str, str] = field(default_factory=dict)
    vpc_id: str | None = None
    subnet_ids: tuple[str, ...] = ()
    security_group_ids: tuple[str, ...] = ()
    cluster_security_group_id: str | None = None
    # Who may reach the API endpoint from outside the VPC (EKS's defaults: public, to every address).
    endpoint_public_access: bool = True
    public_access_cidrs: tuple[str, ...] = ("0.0.0.0/0",)


@dataclass(frozen=True)
class AccessEntryState:
    """What a principal's access entry grants today: its associated policies' ARNs and its Kubernetes groups."""

    policies: frozenset[str]
    groups: tuple[str, ...]


@dataclass(frozen=True)
class AccessEntrySpec:
    """One access entry the control plane keeps on a cluster: an EKS access policy (cluster scope), or Kubernetes
    groups whose RBAC the control plane applies."""

    principal_arn: str
    policy: str | None = None
    groups: tuple[str, ...] = ()

    @property
    def grants(self) -> str:
        """What the entry grants, as a plan or a report names it."""
        return ", ".join([*([self.policy] if self.policy else []), *self.groups])


@dataclass(frozen=True)
class ControlPlaneAccess:
    """The control plane's principals on every cluster it creates or imports: the steps' role with cluster admin,
    the internet-facing API's role, which only reads (view, and in `view_group` what RBAC lets it read besides), and
    the API's jobs role, in `jobs_group`, which RBAC lets create and delete job objects and nothing else
    (`controlplane.core.workload_access`)."""

    admin_role_arn: str
    view_role_arn: str
    jobs_role_arn: str
    jobs_group: str
    view_group: str

    def entries(self) -> tuple[AccessEntrySpec, ...]:
        """Each access entry the control plane keeps on a cluster."""
        return (
            AccessEntrySpec(self.admin_role_arn, policy=ADMIN_ACCESS_POLICY),
            AccessEntrySpec(self.view_role_arn, policy=VIEW_ACCESS_POLICY, groups=(self.view_group,)),
            AccessEntrySpec(self.jobs_role_arn, groups=(self.jobs_group,)),
        )


class EksGateway(Protocol):
    def find_cluster(self, name: str) -> EksCluster | None: ...

    def create_cluster(
        self,
        name: str,
        version: str,
        role_arn: str,
        subnet_ids: list[str],
        security_group_ids: list[str],
        tags: dict[str, str],
    ) -> EksCluster: ...

    def delete_cluster(self, name: str) -> None: ...

    def access_entry(self, cluster_name: str, principal_arn: str) -> AccessEntryState | None:
        """The principal's access entry (its policies' ARNs and Kubernetes groups), or None without an entry."""

    def create_access_entry(
        self, cluster_name: str, principal_arn: str, tags: dict[str, str], groups: tuple[str, ...] = ()
    ) -> None:
        """A STANDARD entry, in the Kubernetes `groups` given."""

    def update_access_entry_groups(self, cluster_name: str, principal_arn: str, groups: tuple[str, ...]) -> None:
        """Replace the entry's Kubernetes groups with `groups` (UpdateAccessEntry)."""

    def associate_access_policy(self, cluster_name: str, principal_arn: str, policy: str) -> None:
        """Associate the EKS access policy named `policy` (e.g. `AmazonEKSViewPolicy`), cluster scope."""

    def access_entry_tags(self, cluster_name: str, principal_arn: str) -> dict[str, str] | None:
        """The tags of the principal's access entry, or None without an entry."""

    def delete_access_entry(self, cluster_name: str, principal_arn: str) -> None:
        """Remove the entry (absent is fine)."""

    def tag_cluster(self, cluster_arn: str, tags: dict[str, str]) -> None: ...

    def untag_cluster(self, cluster_arn: str, keys: list[str]) -> None: ...

    def find_addon(self, cluster_name: str, addon_name: str) -> Addon | None: ...

    def addon_versions(self, addon_name: str, kubernetes_version: str) -> list[str]:
        """The versions of the add-on EKS offers for clusters on this Kubernetes version (DescribeAddonVersions)."""

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
        """CreateAddon; `pod_identities` maps service account → role ARN (associations owned by the add-on)."""

    def delete_addon(self, cluster_name: str, addon_name: str) -> None: ...

    def pod_identity_role(self, cluster_name: str, namespace: str, service_account: str) -> str | None:
        """Role ARN of the pod identity association for a ServiceAccount, or None."""

    def create_pod_identity_association(
        self, cluster_name: str, namespace: str, service_account: str, role_arn: str, tags: dict[str, str]
    ) -> None: ...

    def delete_pod_identity_association(self, cluster_name: str, namespace: str, service_account: str) -> None:
        """Remove the ServiceAccount's association (absent is fine)."""


@dataclass(frozen=True)
class AddonIssue:
    """One of the health issues EKS reports on an add-on (`code` as EKS names it, e.g. InsufficientNumberOfReplicas)."""

    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


@dataclass(frozen=True)
class Addon:
    name: str
    status: str
    version: str | None
    issues: tuple[AddonIssue, ...] = ()
    tags: dict[str, str] = field(default_factory=dict)
    configuration: str | None = None  # configurationValues (JSON), as installed
