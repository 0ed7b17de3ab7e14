"""What the API's jobs role may do for model servers, through Kubernetes RBAC: create, patch and delete their
Deployments and Services, relabel pool workers, and call a Service through the API server's proxy.

The jobs role's access entry names the Kubernetes group `JOB_WRITERS_GROUP` (`core.training.access`); this
ClusterRole is bound to the same group, so one least-privilege identity writes workloads and nothing else.
Secrets (a Hugging Face token) are created and deleted under the job writer's rule, never read.
"""

from __future__ import annotations

from typing import Any

from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.core.training.access import JOB_WRITERS_GROUP

SERVING_WRITER_ROLE = "instantstart-model-server-writer"
SERVING_RULES = [
    {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create", "delete", "get", "patch"]},
    {"apiGroups": [""], "resources": ["services"], "verbs": ["create", "delete", "get"]},
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["patch"]},
    {"apiGroups": [""], "resources": ["services/proxy"], "verbs": ["create", "get"]},
]


def serving_writer_rbac() -> list[dict[str, Any]]:
    """The ClusterRole for model servers' writes and service-proxy calls, and its binding to the jobs group."""
    metadata = {"name": SERVING_WRITER_ROLE, "labels": {MANAGED_LABEL: MANAGED_LABEL_VALUE}}
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": metadata,
            "rules": SERVING_RULES,
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": metadata,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": SERVING_WRITER_ROLE},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": JOB_WRITERS_GROUP}],
        },
    ]
