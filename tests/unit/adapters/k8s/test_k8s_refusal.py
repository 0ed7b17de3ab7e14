"""Which answers of a cluster's API server are refusals of the control plane's access, and which are about the call."""

from __future__ import annotations

import json

from kubernetes.client.exceptions import ApiException

from controlplane.adapters.k8s.refusal import access_denied
from controlplane.core.naming import VIEWERS_GROUP

ROLE = "arn:aws:iam::123456789012:role/instantstart-kubernetes-view"


def refusal(status: int, message: str) -> ApiException:
    error = ApiException(status=status, reason="Forbidden" if status == 403 else "Unauthorized")
    error.body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message})
    return error


def test_a_refused_read_of_the_view_role_names_the_role_the_group_and_the_route_that_restores_it() -> None:
    error = refusal(403, 'workloads.kueue.x-k8s.io is forbidden: User "x" cannot list resource "workloads"')

    denied = access_denied(error, "eks-cluster-demo", ROLE, "demo", read=True)

    assert denied is not None and denied.code == "ClusterAccessDenied"
    assert ROLE in str(denied) and VIEWERS_GROUP in str(denied) and "workloads" in str(denied)
    assert "POST /clusters/demo/access" in str(denied)


def test_a_403_to_another_call_is_about_the_call_and_a_401_is_the_missing_entry_with_the_same_route() -> None:
    assert access_denied(refusal(403, "secrets is forbidden"), "eks-cluster-demo", ROLE, "demo", read=False) is None
    missing = access_denied(refusal(401, "Unauthorized"), "eks-cluster-demo", ROLE, "demo", read=False)
    assert missing is not None and "POST /clusters/demo/access" in str(missing)
