"""EKS clusters with their access entries, add-ons and pod identity associations."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from controlplane.config import cluster_dependencies
from controlplane.core.features.catalog import addon_pins
from controlplane.core.ports.eks import AccessEntryState, Addon, AddonIssue, EksCluster

ACCOUNT = "123456789012"


@dataclass
class AccessEntry:
    tags: dict[str, str]
    policies: set[str] = field(default_factory=set)
    groups: tuple[str, ...] = ()


@dataclass
class AddonRequest:
    """What CreateAddon was asked beyond the add-on itself: its IRSA role, configuration and pod identities."""

    role_arn: str | None
    configuration: str | None = None
    pod_identities: dict[str, str] | None = None


class InMemoryEksGateway:
    """New clusters start CREATING and new add-ons in `addon_status` (AWS: CREATING); deleted add-ons are DELETING.
    `activate` settles a cluster the way EKS does (ACTIVE, with an OIDC issuer); `settle` lets EKS finish everything
    it was asked. `addon_requests` keeps what each CreateAddon that created an add-on was asked. EKS offers each
    reviewed pin (`controlplane.config`) for every Kubernetes version, and what `offer` adds."""

    def __init__(self, region: str = "us-west-2", addon_status: str = "CREATING") -> None:
        self.region = region
        self.addon_status = addon_status
        self.clusters: dict[str, EksCluster] = {}
        self.access_entries: dict[tuple[str, str], AccessEntry] = {}
        self.addons: dict[tuple[str, str], Addon] = {}
        self.addon_requests: dict[tuple[str, str], AddonRequest] = {}
        self.pod_identities: dict[tuple[str, str, str], str] = {}
        # (add-on, Kubernetes version or None for every version) → the add-on versions EKS offers
        self.offered: dict[tuple[str, str | None], tuple[str, ...]] = {
            (addon, None): (version,) for addon, version in addon_pins(cluster_dependencies().addons).items()
        }

    # --- helpers for tests -------------------------------------------------------------------

    def add_cluster(self, name: str, **facts: object) -> EksCluster:
        """An ACTIVE cluster (created by the control plane or by someone else); `facts` override fields."""
        cluster = replace(
            EksCluster(
                name=name,
                arn=self._arn(name),
                status="ACTIVE",
                version="1.34",
                endpoint=f"https://{name}.eks.example",
                certificate_authority="Y2E=",
                oidc_issuer=f"https://oidc.eks.{self.region}.amazonaws.com/id/{name.upper()}",
                authentication_mode="API_AND_CONFIG_MAP",
            ),
            **facts,
        )
        self.clusters[name] = cluster
        return cluster

    def activate(self, name: str) -> EksCluster:
        cluster = replace(
            self.clusters[name],
            status="ACTIVE",
            endpoint=f"https://{name}.eks.example",
            certificate_authority="Y2E=",
            oidc_issuer=f"https://oidc.eks.{self.region}.amazonaws.com/id/{name.upper()}",
        )
        self.clusters[name] = cluster
        return cluster

    def add_addon(
        self, cluster_name: str, addon_name: str, status: str = "ACTIVE", tags: dict[str, str] | None = None
    ) -> Addon:
        """An add-on that exists before the test (installed by an earlier stage, or by hand when untagged)."""
        addon = Addon(name=addon_name, status=status, version="v1.0.0-eksbuild.1", tags=dict(tags or {}))
        self.addons[(cluster_name, addon_name)] = addon
        return addon

    def offer(self, addon_name: str, *versions: str, kubernetes: str | None = None) -> None:
        """EKS offers these versions of the add-on (for this Kubernetes version only, when given), and no other."""
        self.offered[(addon_name, kubernetes)] = versions

    def settle(self) -> None:
        """EKS finishes: creating clusters and add-ons turn ACTIVE, deleting ones are gone."""
        for name, cluster in list(self.clusters.items()):
            if cluster.status == "CREATING":
                self.activate(name)
            elif cluster.status == "DELETING":
                del self.clusters[name]
        for key, addon in list(self.addons.items()):
            if addon.status == "CREATING":
                self.addons[key] = replace(addon, status="ACTIVE")
            elif addon.status == "DELETING":
                del self.addons[key]

    # --- clusters ----------------------------------------------------------------------------

    def find_cluster(self, name: str) -> EksCluster | None:
        return self.clusters.get(name)

    def create_cluster(
        self,
        name: str,
        version: str,
        role_arn: str,
        subnet_ids: list[str],
        security_group_ids: list[str],
        tags: dict[str, str],
    ) -> EksCluster:
        cluster = EksCluster(
            name=name,
            arn=self._arn(name),
            status="CREATING",
            version=version,
            endpoint=None,
            certificate_authority=None,
            oidc_issuer=None,
            authentication_mode="API_AND_CONFIG_MAP",
            tags=dict(tags),
            subnet_ids=tuple(subnet_ids),
            security_group_ids=tuple(security_group_ids),
        )
        self.clusters[name] = cluster
        return cluster

    def delete_cluster(self, name: str) -> None:
        if name in self.clusters:
            self.clusters[name] = replace(self.clusters[name], status="DELETING")

    def tag_cluster(self, cluster_arn: str, tags: dict[str, str]) -> None:
        name = self._name(cluster_arn)
        self.clusters[name] = replace(self.clusters[name], tags={**self.clusters[name].tags, **tags})

    def untag_cluster(self, cluster_arn: str, keys: list[str]) -> None:
        name = self._name(cluster_arn)
        tags = {key: value for key, value in self.clusters[name].tags.items() if key not in keys}
        self.clusters[name] = replace(self.clusters[name], tags=tags)

    # --- access entries ----------------------------------------------------------------------

    def access_entry(self, cluster_name: str, principal_arn: str) -> AccessEntryState | None:
        entry = self.access_entries.get((cluster_name, principal_arn))
        return AccessEntryState(frozenset(entry.policies), entry.groups) if entry else None

    def update_access_entry_groups(self, cluster_name: str, principal_arn: str, groups: tuple[str, ...]) -> None:
        self.access_entries[(cluster_name, principal_arn)].groups = groups

    def create_access_entry(
        self, cluster_name: str, principal_arn: str, tags: dict[str, str], groups: tuple[str, ...] = ()
    ) -> None:
        self.access_entries.setdefault((cluster_name, principal_arn), AccessEntry(tags=dict(tags), groups=groups))

    def associate_access_policy(self, cluster_name: str, principal_arn: str, policy: str) -> None:
        self.access_entries[(cluster_name, principal_arn)].policies.add(
            f"arn:aws:eks::aws:cluster-access-policy/{policy}"
        )

    def access_entry_tags(self, cluster_name: str, principal_arn: str) -> dict[str, str] | None:
        entry = self.access_entries.get((cluster_name, principal_arn))
        return dict(entry.tags) if entry else None

    def delete_access_entry(self, cluster_name: str, principal_arn: str) -> None:
        self.access_entries.pop((cluster_name, principal_arn), None)

    # --- add-ons -----------------------------------------------------------------------------

    def find_addon(self, cluster_name: str, addon_name: str) -> Addon | None:
        return self.addons.get((cluster_name, addon_name))

    def addon_versions(self, addon_name: str, kubernetes_version: str) -> list[str]:
        found = self.offered.get((addon_name, kubernetes_version), self.offered.get((addon_name, None), ()))
        return list(found)

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
        """Like the adapter, an add-on that exists already (ResourceInUse) is returned as it is."""
        key = (cluster_name, addon_name)
        if key in self.addons:
            return self.addons[key]
        addon = Addon(
            name=addon_name, status=self.addon_status, version=version, tags=dict(tags), configuration=configuration
        )
        self.addons[key] = addon
        self.addon_requests[key] = AddonRequest(
            role_arn, configuration, dict(pod_identities) if pod_identities else None
        )
        return addon

    def set_addon_status(self, cluster_name: str, addon_name: str, status: str, *issues: AddonIssue) -> None:
        addon = self.addons[(cluster_name, addon_name)]
        self.addons[(cluster_name, addon_name)] = replace(addon, status=status, issues=issues)

    def delete_addon(self, cluster_name: str, addon_name: str) -> None:
        key = (cluster_name, addon_name)
        if key in self.addons:
            self.addons[key] = replace(self.addons[key], status="DELETING")

    # --- pod identity ------------------------------------------------------------------------

    def pod_identity_role(self, cluster_name: str, namespace: str, service_account: str) -> str | None:
        return self.pod_identities.get((cluster_name, namespace, service_account))

    def create_pod_identity_association(
        self, cluster_name: str, namespace: str, service_account: str, role_arn: str, tags: dict[str, str]
    ) -> None:
        self.pod_identities[(cluster_name, namespace, service_account)] = role_arn

    def delete_pod_identity_association(self, cluster_name: str, namespace: str, service_account: str) -> None:
        self.pod_identities.pop((cluster_name, namespace, service_account), None)

    def _arn(self, name: str) -> str:
        return f"arn:aws:eks:{self.region}:{ACCOUNT}:cluster/{name}"

    @staticmethod
    def _name(cluster_arn: str) -> str:
        return cluster_arn.rsplit("/", 1)[-1]
