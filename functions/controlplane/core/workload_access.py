"""What the API's jobs and view roles may do in a cluster beyond their EKS access policies, through Kubernetes RBAC.

The jobs role writes exactly the workload objects it needs —
training jobs (HyperPodPyTorchJob, RayJob, RayCluster), managed inference endpoints, dev spaces' Workspaces (started
and stopped by patch), download tokens' Secrets — and
the model servers' Deployments and Services, with pool workers' labels and calls through the service proxy; and read
Secrets only in the namespaces the control plane owns, to check that a workload's token Secret is its own.

EKS access policies are fixed rule tables without custom resources, so the jobs role's access entry carries no
policy but the Kubernetes group `JOB_WRITERS_GROUP`, and two ClusterRoles bound to that group name the verbs and
kinds the workload routes need: the job writer and the model-server writer. The view role's AmazonEKSViewPolicy reads
Kubernetes' built-in workload kinds (pods, events, logs, Deployments) but no Secret, Node or custom resource; its entry
also carries `VIEWERS_GROUP`, and the view reader ClusterRole bound to it reads what the API's reads need besides:
every kind the jobs role writes, Kueue's queues and workloads, nodes, and the kinds the feature probes read. Stage 1
and the import apply them with the Secret reader of `default`; stage 5 applies the Secret reader of the namespace it
puts its claims in. The kinds are their contexts' (training, endpoints, spaces, Kueue's port, features).
"""

from __future__ import annotations

from typing import Any

from controlplane.core.endpoints.manifest import API_GROUP as ENDPOINTS_API_GROUP
from controlplane.core.endpoints.manifest import PLURALS as ENDPOINT_PLURALS
from controlplane.core.features.catalog import karpenter
from controlplane.core.naming import JOB_WRITERS_GROUP, MANAGED_LABEL, MANAGED_LABEL_VALUE, VIEWERS_GROUP
from controlplane.core.ports import queues
from controlplane.core.spaces import manifest as spaces
from controlplane.core.storage.namespace import SHARED_NAMESPACE, secret_reader_rbac
from controlplane.core.training import manifest, ray

JOB_WRITER_ROLE = "instantstart-job-writer"
# The kinds the job and endpoint routes write, by API group: HyperPodPyTorchJob, KubeRay's RayJob and RayCluster, and
# the inference operator's endpoint kinds.
JOB_RESOURCES = {
    manifest.API_VERSION.split("/")[0]: ["hyperpodpytorchjobs"],
    ray.API_VERSION.split("/")[0]: ["rayjobs", "rayclusters"],
    ENDPOINTS_API_GROUP: sorted(ENDPOINT_PLURALS.values()),
}
JOB_VERBS = ["create", "delete", "get", "list"]
# A request's Hugging Face token is written to a Secret by the API: create and delete anywhere, read nowhere but
# through a namespace's Secret reader.
SECRET_RULE = {"apiGroups": [""], "resources": ["secrets"], "verbs": ["create", "delete"]}
# Dev spaces: written as jobs are, and patched to start and stop.
SPACE_RULE = {"apiGroups": [spaces.API_GROUP], "resources": [spaces.PLURAL], "verbs": [*JOB_VERBS, "patch"]}
SERVING_WRITER_ROLE = "instantstart-model-server-writer"
SERVING_RULES = [
    {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create", "delete", "get", "patch"]},
    {"apiGroups": [""], "resources": ["services"], "verbs": ["create", "delete", "get"]},
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["patch"]},
    {"apiGroups": [""], "resources": ["services/proxy"], "verbs": ["create", "get"]},
]

VIEW_READER_ROLE = "instantstart-view-reader"
# Reads only: nothing in the control plane watches (the live views poll, the pushers re-read).
VIEW_VERBS = ["get", "list"]
# What the API's reads need that AmazonEKSViewPolicy's fixed rules leave out, besides the kinds the jobs role writes:
# Kueue's objects (teams view, queued jobs), nodes (placement, capacity), and what feature probes and drift checks get
# by name (the bundles' CRDs and cluster RBAC, Karpenter's NodePool and HyperpodNodeClass).
VIEW_EXTRA_RESOURCES = {
    queues.API_GROUP: [queues.CLUSTER_QUEUES, queues.WORKLOADS],
    "": ["nodes"],
    "apiextensions.k8s.io": ["customresourcedefinitions"],
    "rbac.authorization.k8s.io": ["clusterroles", "clusterrolebindings"],
    karpenter.NODE_POOL_API_VERSION.split("/")[0]: [karpenter.NODE_POOL_PLURAL],
    karpenter.NODE_CLASS_API_VERSION.split("/")[0]: [karpenter.NODE_CLASS_PLURAL],
}


def view_resources() -> dict[str, list[str]]:
    """By API group, what the view reader reads: every kind the jobs role writes, and `VIEW_EXTRA_RESOURCES`."""
    written = {**JOB_RESOURCES, spaces.API_GROUP: [spaces.PLURAL]}
    return {
        group: sorted({*written.get(group, []), *VIEW_EXTRA_RESOURCES.get(group, [])})
        for group in {**written, **VIEW_EXTRA_RESOURCES}
    }


def view_reader_rbac() -> list[dict[str, Any]]:
    """The ClusterRole that reads what AmazonEKSViewPolicy leaves out, and its binding to the viewers' group."""
    rules = [
        {"apiGroups": [group], "resources": plurals, "verbs": VIEW_VERBS} for group, plurals in view_resources().items()
    ]
    return _bound(VIEW_READER_ROLE, rules, VIEWERS_GROUP)


def job_writer_rbac() -> list[dict[str, Any]]:
    """The ClusterRole that may create, read and delete job objects, and its binding to the jobs group."""
    rules = [
        *({"apiGroups": [group], "resources": plurals, "verbs": JOB_VERBS} for group, plurals in JOB_RESOURCES.items()),
        SPACE_RULE,
        SECRET_RULE,
    ]
    return _bound(JOB_WRITER_ROLE, rules, JOB_WRITERS_GROUP)


def serving_writer_rbac() -> list[dict[str, Any]]:
    """The ClusterRole for model servers' writes and service-proxy calls, and its binding to the jobs group."""
    return _bound(SERVING_WRITER_ROLE, SERVING_RULES, JOB_WRITERS_GROUP)


def workload_rbac() -> list[dict[str, Any]]:
    """What stage 1 and the import apply with the access entries (and an imported cluster's release removes)."""
    return [*job_writer_rbac(), *serving_writer_rbac(), *view_reader_rbac(), *secret_reader_rbac(SHARED_NAMESPACE)]


def _bound(role: str, rules: list[dict[str, Any]], group: str) -> list[dict[str, Any]]:
    metadata = {"name": role, "labels": {MANAGED_LABEL: MANAGED_LABEL_VALUE}}
    return [
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": metadata, "rules": rules},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": metadata,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": group}],
        },
    ]
