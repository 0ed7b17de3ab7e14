"""The namespace stage 5 puts its claims in, and with them every workload that mounts them (jobs, model servers,
downloads and endpoints run in the claim's namespace): `default`, a namespace the stage creates labelled as the
control plane's, or an existing one that carries that label. The request model refuses kube-* namespaces; here is
the rule for one that exists; and the Role that lets the API's jobs role read Secrets in such a namespace, so that a
workload's token Secret is checked to be the control plane's (`core.secret_references`). Pure functions over the
Namespace as read, no I/O."""

from __future__ import annotations

from typing import Any

from controlplane.core.naming import JOB_WRITERS_GROUP, MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.models.clusters import PlannedAction
from controlplane.models.errors import ForeignResourceError

# Kubernetes' namespace for objects created without one: every cluster has it and it holds no system credentials.
SHARED_NAMESPACE = "default"
SECRET_READER_ROLE = "instantstart-secret-reader"
RBAC_API = "rbac.authorization.k8s.io"


def owned_namespace(name: str) -> dict[str, Any]:
    """The Namespace stage 5 creates, labelled as the control plane's."""
    labels = {MANAGED_LABEL: MANAGED_LABEL_VALUE}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def namespace_to_create(name: str, found: dict[str, Any] | None) -> dict[str, Any] | None:
    """The Namespace to create when `name` does not exist yet; None when it may be used as it is. An existing
    namespace other than `default` without the ownership label is someone else's: refused, saying how to label it."""
    if found is None:
        return owned_namespace(name)
    labels = found.get("metadata", {}).get("labels") or {}
    if name != SHARED_NAMESPACE and labels.get(MANAGED_LABEL) != MANAGED_LABEL_VALUE:
        raise ForeignResourceError(
            f"Namespace {name} exists but is not the control plane's: workloads go only to namespaces it owns. Name "
            "a namespace that does not exist yet (stage 5 creates it), or, if this one is meant for InstantStart's "
            f"workloads, label it: kubectl label namespace {name} {MANAGED_LABEL}={MANAGED_LABEL_VALUE}",
            {"namespace": name, "label": f"{MANAGED_LABEL}={MANAGED_LABEL_VALUE}"},
        )
    return None


def namespace_action(name: str) -> PlannedAction:
    return PlannedAction(
        action="create",
        resource="Kubernetes Namespace",
        name=name,
        detail=f"labelled {MANAGED_LABEL}={MANAGED_LABEL_VALUE}; removed with the EKS cluster",
    )


def secret_reader_rbac(namespace: str) -> list[dict[str, Any]]:
    """The Role that lets the jobs role's group get Secrets in `namespace`, and its RoleBinding. The group may
    create and delete Secrets anywhere (`core.workload_access`) but read them only where this is applied."""
    metadata = {"name": SECRET_READER_ROLE, "namespace": namespace, "labels": {MANAGED_LABEL: MANAGED_LABEL_VALUE}}
    rules = [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]
    return [
        {"apiVersion": f"{RBAC_API}/v1", "kind": "Role", "metadata": metadata, "rules": rules},
        {
            "apiVersion": f"{RBAC_API}/v1",
            "kind": "RoleBinding",
            "metadata": metadata,
            "roleRef": {"apiGroup": RBAC_API, "kind": "Role", "name": SECRET_READER_ROLE},
            "subjects": [{"apiGroup": RBAC_API, "kind": "Group", "name": JOB_WRITERS_GROUP}],
        },
    ]
