"""What the API's jobs role may do in a cluster: exactly the workload objects it writes — training jobs
(HyperPodPyTorchJob, RayJob, RayCluster) and managed inference endpoints (and writing download tokens' Secrets) —
through Kubernetes RBAC.

EKS access policies are fixed rule tables without custom resources, so the jobs role's access entry carries no
policy but the Kubernetes group `JOB_WRITERS_GROUP`, and this ClusterRole (bound to that group) names the verbs
and kinds the job routes need. The view role reads everything else (pods, events, logs).
"""

from __future__ import annotations

from typing import Any

from controlplane.core.endpoints.manifest import API_GROUP as ENDPOINTS_API_GROUP
from controlplane.core.endpoints.manifest import PLURALS as ENDPOINT_PLURALS
from controlplane.core.naming import JOB_WRITERS_GROUP, MANAGED_LABEL, MANAGED_LABEL_VALUE
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
# A download's Hugging Face token is written to a Secret by the API (`core.downloads`): create and delete, never read.
SECRET_RULE = {"apiGroups": [""], "resources": ["secrets"], "verbs": ["create", "delete"]}


def job_writer_rbac() -> list[dict[str, Any]]:
    """The ClusterRole that may create, read and delete job objects, and its binding to the jobs group."""
    rules = [
        *({"apiGroups": [group], "resources": plurals, "verbs": JOB_VERBS} for group, plurals in JOB_RESOURCES.items()),
        SECRET_RULE,
    ]
    metadata = {"name": JOB_WRITER_ROLE, "labels": {MANAGED_LABEL: MANAGED_LABEL_VALUE}}
    return [
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": metadata, "rules": rules},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": metadata,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": JOB_WRITER_ROLE},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": JOB_WRITERS_GROUP}],
        },
    ]
