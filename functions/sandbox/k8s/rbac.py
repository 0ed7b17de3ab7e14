"""What a call does, as Kubernetes RBAC names it, and the RBAC check for principals known by their groups.

The sandbox's clusters authorize a call as EKS does: an access entry's access policies first (the runtime's
authorizer), then, for an entry that names Kubernetes groups, the cluster's ClusterRoleBindings of those groups
and the rules of their ClusterRoles, and the RoleBindings of those groups in the call's namespace and the rules of
the Role or ClusterRole each refers to. Aggregation and resource names are not evaluated. Discovery (no resource)
is open to every authenticated reader, as in Kubernetes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sandbox.k8s.emulator import ClusterStore

RBAC = ("rbac.authorization.k8s.io", "v1")
READ_VERBS = frozenset({"get", "list", "watch"})


@dataclass(frozen=True)
class ApiAccess:
    """One call: its RBAC verb, and the API group and resource (`pods/log` for a subresource); both None for
    discovery. `namespace` is the namespace a namespaced call names (None: cluster-wide)."""

    verb: str
    api_group: str | None
    resource: str | None
    namespace: str | None = None

    @property
    def write(self) -> bool:
        return self.verb not in READ_VERBS

    def refusal(self) -> str:
        """RBAC's refusal of the call, worded as the API server words it (k8s.io/apiserver's responsewriters
        `forbiddenMessage`); the emulator does not map the token to a username, so the signer stands for it."""
        user = 'User "(the bearer token\'s signer)"'
        if self.resource is None:
            return f"forbidden: {user} cannot {self.verb} path"
        where = f'resource "{self.resource}" in API group "{self.api_group}"'
        return f"{self.resource} is forbidden: {user} cannot {self.verb} {where}"


def rbac_allows(store: ClusterStore, groups: Iterable[str], access: ApiAccess) -> bool:
    """Whether a ClusterRole bound to one of `groups`, or a Role or ClusterRole bound to one of them in the call's
    namespace, allows the call."""
    if access.resource is None:
        return not access.write
    wanted = set(groups)
    refs = [binding["roleRef"] for binding in _bindings(store, "clusterrolebindings", wanted)]
    if access.namespace is not None:
        refs += [binding["roleRef"] for binding in _bindings(store, "rolebindings", wanted, access.namespace)]
    for ref in refs:
        if ref["kind"] == "Role":
            role = store.get(*RBAC, "roles", access.namespace, ref["name"]) or {}
        else:
            role = store.get(*RBAC, "clusterroles", None, ref["name"]) or {}
        if any(rule_allows(rule, access) for rule in role.get("rules") or []):
            return True
    return False


def _bindings(store: ClusterStore, plural: str, groups: set[str], namespace: str | None = None) -> list[dict[str, Any]]:
    """The bindings (of `plural`, in `namespace`) that name one of `groups` as a subject."""
    return [
        binding
        for binding in store.list(*RBAC, plural, namespace)
        if any(s.get("kind") == "Group" and s.get("name") in groups for s in binding.get("subjects") or [])
    ]


def rule_allows(rule: dict[str, Any], access: ApiAccess) -> bool:
    """Whether one RBAC rule (apiGroups, resources, verbs; `*` matches all) allows the call."""
    return all(
        "*" in values or value in values
        for values, value in (
            (rule.get("apiGroups") or [], access.api_group),
            (rule.get("resources") or [], access.resource),
            (rule.get("verbs") or [], access.verb),
        )
    )
