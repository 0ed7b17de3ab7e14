"""EKS access entries and their access policies (what moto lacks), and who they make a cluster admin.

Served: CreateAccessEntry, ListAccessEntries, DescribeAccessEntry, UpdateAccessEntry, DeleteAccessEntry,
AssociateAccessPolicy and ListAssociatedAccessPolicies. The sandbox's Kubernetes API servers ask
:meth:`AccessEntries.allows` whether a token's signer may make a call, as EKS does: the cluster admin policy allows
everything, the view policy what its fixed rules list (`sandbox.aws.eks.access_policies`); :meth:`AccessEntries.groups`
names an entry's Kubernetes groups, whose RBAC the emulated cluster decides.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from moto.eks.models import eks_backends

from sandbox.aws.eks.access_policies import view_policy_allows
from sandbox.aws.eks.errors import EksError
from sandbox.aws.eks.rest import CLUSTER, Response, RestCall, ok, route
from sandbox.aws.patches import Patches
from sandbox.k8s.rbac import ApiAccess

ADMIN_POLICY_SUFFIX = "/AmazonEKSClusterAdminPolicy"
VIEW_POLICY_SUFFIX = "/AmazonEKSViewPolicy"


class AccessEntries:
    def __init__(self, account: str) -> None:
        self._account = account
        self._lock = threading.Lock()
        # (region, cluster) → principal ARN → {"entry": the accessEntry shape, "policies": {policy ARN: scope}}
        self._entries: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self._patches = Patches()

    def install(self) -> None:
        entries = CLUSTER + "/access-entries"
        patterns = [
            entries + "$",
            entries + "/(?P<principal>[^/]+)$",
            entries + "/(?P<principal>[^/]+)/access-policies$",
        ]
        route(patterns, self._handle, self._patches)

    def uninstall(self) -> None:
        self._patches.restore()

    def forget(self, region: str, cluster: str) -> None:
        """Drop a deleted cluster's entries."""
        with self._lock:
            self._entries.pop((region, cluster), None)

    def is_admin(self, cluster_name: str, principal_arn: str) -> bool:
        """Whether the principal holds the cluster admin access policy on the cluster (in any region)."""
        return any(arn.endswith(ADMIN_POLICY_SUFFIX) for arn in self._policies(cluster_name, principal_arn))

    def allows(self, cluster_name: str, principal_arn: str, access: ApiAccess) -> bool:
        """Whether the principal's access policies allow a call: admin anything, view what AmazonEKSViewPolicy's
        rules list (no Secrets, no custom resources)."""
        policies = self._policies(cluster_name, principal_arn)
        suffixes = (ADMIN_POLICY_SUFFIX, VIEW_POLICY_SUFFIX) if view_policy_allows(access) else (ADMIN_POLICY_SUFFIX,)
        return any(arn.endswith(suffixes) for arn in policies)

    def has_entry(self, cluster_name: str, principal_arn: str) -> bool:
        """Whether the principal has an access entry on the cluster (in any region)."""
        with self._lock:
            return any(
                name == cluster_name and principal_arn in entries for (_, name), entries in self._entries.items()
            )

    def groups(self, cluster_name: str, principal_arn: str) -> list[str]:
        """The Kubernetes groups of the principal's access entry on the cluster (in any region)."""
        with self._lock:
            return [
                group
                for (_, name), entries in self._entries.items()
                if name == cluster_name and principal_arn in entries
                for group in entries[principal_arn]["entry"]["kubernetesGroups"]
            ]

    def _policies(self, cluster_name: str, principal_arn: str) -> list[str]:
        with self._lock:
            return [
                arn
                for (_, name), entries in self._entries.items()
                if name == cluster_name and principal_arn in entries
                for arn in entries[principal_arn]["policies"]
            ]

    def _handle(self, call: RestCall) -> Response:
        cluster_name = call.parts[1]
        cluster = eks_backends[self._account][call.region].clusters.get(cluster_name)
        if cluster is None:
            raise EksError(404, "ResourceNotFoundException", f"No cluster found for name: {cluster_name}.")
        with self._lock:
            entries = self._entries.setdefault((call.region, cluster_name), {})
            if len(call.parts) == 3 and call.method == "POST":
                return _create(cluster, entries, call.body)
            if len(call.parts) == 3:
                return ok({"accessEntries": sorted(entries)})
            principal = call.parts[3]
            entry = entries.get(principal)
            if entry is None:
                raise EksError(404, "ResourceNotFoundException", "The specified principalArn could not be found.")
            if len(call.parts) == 4 and call.method == "DELETE":
                del entries[principal]
                return ok({})
            if len(call.parts) == 4 and call.method == "POST":
                return _update(entry["entry"], call.body)
            if len(call.parts) == 4:
                return ok({"accessEntry": entry["entry"]})
            if call.method == "POST":
                entry["policies"][call.body["policyArn"]] = call.body["accessScope"]
                associated = _associated(call.body["policyArn"], call.body["accessScope"])
                return ok(
                    {"clusterName": cluster_name, "principalArn": principal, "associatedAccessPolicy": associated}
                )
            policies = [_associated(arn, scope) for arn, scope in entry["policies"].items()]
            return ok({"clusterName": cluster_name, "principalArn": principal, "associatedAccessPolicies": policies})


def _create(cluster: Any, entries: dict[str, dict[str, Any]], body: dict[str, Any]) -> Response:
    principal = body["principalArn"]
    if principal in entries:
        raise EksError(409, "ResourceInUseException", "The specified access entry resource is already in use.")
    _groups_allowed(body.get("type", "STANDARD"), body)
    now = time.time()
    entry = {
        "clusterName": cluster.name,
        "principalArn": principal,
        "kubernetesGroups": body.get("kubernetesGroups", []),
        "accessEntryArn": f"{cluster.arn.replace(':cluster/', ':access-entry/')}/{abs(hash(principal))}",
        "createdAt": now,
        "modifiedAt": now,
        "tags": body.get("tags", {}),
        "username": body.get("username") or principal,
        "type": body.get("type", "STANDARD"),
    }
    entries[principal] = {"entry": entry, "policies": {}}
    return ok({"accessEntry": entry})


def _update(entry: dict[str, Any], body: dict[str, Any]) -> Response:
    """UpdateAccessEntry: the groups and username given replace the entry's."""
    _groups_allowed(entry["type"], body)
    if "kubernetesGroups" in body:
        entry["kubernetesGroups"] = list(body["kubernetesGroups"])
    if body.get("username"):
        entry["username"] = body["username"]
    entry["modifiedAt"] = time.time()
    return ok({"accessEntry": entry})


def _groups_allowed(entry_type: str, body: dict[str, Any]) -> None:
    """As EKS: only a STANDARD entry may name Kubernetes groups (the other types' permissions are EKS's)."""
    if body.get("kubernetesGroups") and entry_type != "STANDARD":
        raise EksError(
            400,
            "InvalidParameterException",
            f"kubernetesGroups can only be specified for access entries of type STANDARD, not {entry_type}.",
        )


def _associated(policy_arn: str, scope: dict[str, Any]) -> dict[str, Any]:
    now = time.time()
    return {"policyArn": policy_arn, "accessScope": scope, "associatedAt": now, "modifiedAt": now}
