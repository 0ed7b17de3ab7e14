"""The kinds an emulated cluster serves: the built-in ones, and those a stored CustomResourceDefinition adds.

A :class:`Kind` says where a resource lives in the URL space and which API rules apply to it (scope, status
subresource, name rule, field-selector labels). Nothing here holds objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

JsonObject = dict[str, Any]
KindKey = tuple[str, str, str]  # (group, version, plural)
StorageKey = tuple[str, str]  # (group, plural): every served version of a kind shares one bucket

PODS: StorageKey = ("", "pods")
NAMESPACES: StorageKey = ("", "namespaces")
SECRETS: StorageKey = ("", "secrets")
CRDS: StorageKey = ("apiextensions.k8s.io", "customresourcedefinitions")


class NameRule(NamedTuple):
    pattern: re.Pattern[str]
    max_length: int
    message: str


NAME_RULES = {
    "subdomain": NameRule(
        re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"),
        253,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
        "and must start and end with an alphanumeric character",
    ),
    "label": NameRule(
        re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"),
        63,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character",
    ),
    "dns1035": NameRule(
        re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?"),
        63,
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
        "start with an alphabetic character, and end with an alphanumeric character",
    ),
    "path": NameRule(re.compile(r"(?!\.\.?$)[^/%]+"), 253, "may not be '.' or '..' and may not contain '/' or '%'"),
}


@dataclass(frozen=True)
class Kind:
    """One served resource: where it lives in the URL space and which API rules apply to it."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    status_subresource: bool = True
    name_rule: str = "subdomain"
    custom: bool = False  # served from a CRD: strategic merge patch is refused
    singular: str = ""

    @property
    def key(self) -> KindKey:
        return (self.group, self.version, self.plural)

    @property
    def storage(self) -> StorageKey:
        return (self.group, self.plural)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def resource(self) -> str:
        """The resource as API error messages name it, e.g. ``deployments.apps``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def qualified_kind(self) -> str:
        """The kind as validation messages name it, e.g. ``Deployment.apps``."""
        return f"{self.kind}.{self.group}" if self.group else self.kind


NAMESPACE_KIND = Kind("", "v1", "namespaces", "Namespace", namespaced=False, name_rule="label")
POD_KIND = Kind("", "v1", "pods", "Pod", namespaced=True)
BUILTIN_KINDS: dict[KindKey, Kind] = {
    kind.key: kind
    for kind in (
        NAMESPACE_KIND,
        Kind("", "v1", "nodes", "Node", namespaced=False),
        Kind("", "v1", "persistentvolumes", "PersistentVolume", namespaced=False),
        POD_KIND,
        Kind("", "v1", "services", "Service", namespaced=True, name_rule="dns1035"),
        Kind("", "v1", "serviceaccounts", "ServiceAccount", namespaced=True, status_subresource=False),
        Kind("", "v1", "configmaps", "ConfigMap", namespaced=True, status_subresource=False),
        Kind("", "v1", "secrets", "Secret", namespaced=True, status_subresource=False),
        Kind("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", namespaced=True),
        Kind("", "v1", "events", "Event", namespaced=True, status_subresource=False),
        Kind("", "v1", "endpoints", "Endpoints", namespaced=True, status_subresource=False),
        Kind("apps", "v1", "deployments", "Deployment", namespaced=True),
        Kind("apps", "v1", "daemonsets", "DaemonSet", namespaced=True),
        Kind("apps", "v1", "statefulsets", "StatefulSet", namespaced=True),
        Kind("apps", "v1", "replicasets", "ReplicaSet", namespaced=True),
        Kind("batch", "v1", "jobs", "Job", namespaced=True),
        *(
            Kind(
                "rbac.authorization.k8s.io", "v1", plural, kind, namespaced, status_subresource=False, name_rule="path"
            )
            for plural, kind, namespaced in (
                ("roles", "Role", True),
                ("rolebindings", "RoleBinding", True),
                ("clusterroles", "ClusterRole", False),
                ("clusterrolebindings", "ClusterRoleBinding", False),
            )
        ),
        Kind("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", namespaced=False),
        Kind("storage.k8s.io", "v1", "storageclasses", "StorageClass", namespaced=False, status_subresource=False),
    )
}

# Field selectors beyond metadata.name/metadata.namespace, as the real server supports them per resource.
FIELD_LABELS: dict[StorageKey, frozenset[str]] = {
    PODS: frozenset(
        {
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        }
    ),
    NAMESPACES: frozenset({"status.phase"}),
    ("", "nodes"): frozenset({"spec.unschedulable"}),
    ("", "secrets"): frozenset({"type"}),
    ("", "events"): frozenset(
        {
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "reason",
            "type",
        }
    ),
    ("batch", "jobs"): frozenset({"status.successful"}),
}


def crd_kinds(crd: JsonObject) -> list[Kind]:
    """The kinds a stored CRD serves; none when it is too incomplete to serve anything."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    if not (spec.get("group") and names.get("plural") and names.get("kind")):
        return []
    return [
        Kind(
            spec["group"],
            version["name"],
            names["plural"],
            names["kind"],
            namespaced=spec.get("scope") == "Namespaced",
            status_subresource="status" in (version.get("subresources") or {}),
            custom=True,
            singular=names.get("singular", ""),
        )
        for version in spec.get("versions") or []
        if isinstance(version, dict) and version.get("name") and version.get("served", True)
    ]


def crd_storage(crd: JsonObject) -> StorageKey | None:
    """The bucket of the custom objects a CRD serves (deleted with it)."""
    spec = crd.get("spec") or {}
    plural = (spec.get("names") or {}).get("plural")
    return (spec["group"], plural) if spec.get("group") and plural else None


def crd_problems(crd: JsonObject) -> list[tuple[str, str]]:
    """What makes a CRD invalid, as ``(field, detail)`` causes."""
    spec: JsonObject = crd["spec"] if isinstance(crd.get("spec"), dict) else {}
    names: JsonObject = spec["names"] if isinstance(spec.get("names"), dict) else {}
    versions = spec.get("versions")
    problems = [
        (field, "Required value")
        for field, value in (
            ("spec.group", spec.get("group")),
            ("spec.names.plural", names.get("plural")),
            ("spec.names.kind", names.get("kind")),
        )
        if not value
    ]
    if spec.get("scope") not in ("Namespaced", "Cluster"):
        problems.append(("spec.scope", 'Unsupported value: supported values: "Cluster", "Namespaced"'))
    if (
        not isinstance(versions, list)
        or not versions
        or not all(isinstance(v, dict) and v.get("name") for v in versions)
    ):
        problems.append(("spec.versions", "Required value: every version needs a name"))
    expected = f"{names.get('plural')}.{spec.get('group')}"
    if not problems and crd["metadata"].get("name") != expected:
        detail = f'Invalid value: "{crd["metadata"].get("name")}": must be spec.names.plural+"."+spec.group'
        problems.append(("metadata.name", detail))
    return problems
