"""The rules of the EKS access policies the sandbox serves, as EKS lists them
(https://docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html): fixed tables, like ClusterRoles,
that name no custom resource. AmazonEKSViewPolicy reads Kubernetes' built-in workload kinds but not Secrets, Nodes,
PersistentVolumes or any custom resource; a principal that needs more is given Kubernetes groups whose RBAC grants it.
"""

from __future__ import annotations

from typing import Any

from sandbox.k8s.rbac import READ_VERBS, ApiAccess, rule_allows

_READ = sorted(READ_VERBS)
_APPS = [
    "controllerrevisions",
    "daemonsets",
    "daemonsets/status",
    "deployments",
    "deployments/scale",
    "deployments/status",
    "replicasets",
    "replicasets/scale",
    "replicasets/status",
    "statefulsets",
    "statefulsets/scale",
    "statefulsets/status",
]
_EXTENSIONS = [
    "daemonsets",
    "daemonsets/status",
    "deployments",
    "deployments/scale",
    "deployments/status",
    "ingresses",
    "ingresses/status",
    "networkpolicies",
    "replicasets",
    "replicasets/scale",
    "replicasets/status",
    "replicationcontrollers/scale",
]
_CORE = [
    "configmaps",
    "endpoints",
    "persistentvolumeclaims",
    "persistentvolumeclaims/status",
    "pods",
    "replicationcontrollers",
    "replicationcontrollers/scale",
    "serviceaccounts",
    "services",
    "services/status",
    "bindings",
    "events",
    "limitranges",
    "namespaces/status",
    "pods/log",
    "pods/status",
    "replicationcontrollers/status",
    "resourcequotas",
    "resourcequotas/status",
    "namespaces",
]
VIEW_POLICY_RULES: list[dict[str, Any]] = [
    {"apiGroups": [group], "resources": resources, "verbs": _READ}
    for group, resources in (
        ("apps", _APPS),
        ("autoscaling", ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
        ("batch", ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
        ("discovery.k8s.io", ["endpointslices"]),
        ("extensions", _EXTENSIONS),
        ("networking.k8s.io", ["ingresses", "ingresses/status", "networkpolicies"]),
        ("policy", ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        ("", _CORE),
    )
]


def view_policy_allows(access: ApiAccess) -> bool:
    """Whether AmazonEKSViewPolicy allows the call (discovery is open to every reader, as RBAC's is)."""
    if access.resource is None:
        return not access.write
    return any(rule_allows(rule, access) for rule in VIEW_POLICY_RULES)
