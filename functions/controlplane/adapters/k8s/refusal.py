"""A cluster's refusal of the control plane itself, as one typed error: every call of a client the factory builds
turns the API server's 401 (no access entry of the cluster names the signer, as when a fault stopped stage 1 at Ensure
Access Entry: https://docs.aws.amazon.com/eks/latest/userguide/troubleshooting.html#unauthorized) into
ClusterAccessDeniedError, whichever route or step made the call. A 403 (RBAC refusing a call the signer's entry does
not allow, a protected namespace) is about the call, not the access, and stays as it is; except a read of the view
role, whose reads the control plane grants (AmazonEKSViewPolicy and the viewers' group's RBAC): its 403 says that the
entry lacks the group or the cluster the ClusterRole. Both name POST /clusters/{clusterTag}/access, which restores
them (the cluster's tag is its ownership tag's value, as import tags an adopted cluster).
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from controlplane.core.naming import VIEWERS_GROUP
from controlplane.core.workload_access import VIEW_READER_ROLE
from controlplane.models.errors import ClusterAccessDeniedError

if TYPE_CHECKING:
    from kubernetes.client import ApiClient, Configuration
    from kubernetes.client.exceptions import ApiException


def guarded_client(
    configuration: Configuration, cluster_name: str, role_arn: str, cluster_tag: str, reader: bool
) -> ApiClient:
    """An API client of `cluster_name` (cluster `cluster_tag`), signed as `role_arn` (the view role when `reader`),
    whose refusals of the signer are typed."""
    client: ApiClient = _guarded_class()(configuration)
    client.refused_as = (cluster_name, role_arn, cluster_tag, reader)  # type: ignore[attr-defined]
    return client


@cache
def _guarded_class() -> type[ApiClient]:
    from kubernetes.client import ApiClient
    from kubernetes.client.exceptions import ApiException

    class GuardedApiClient(ApiClient):  # type: ignore[misc]
        refused_as: tuple[str, str, str, bool]

        def call_api(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().call_api(*args, **kwargs)
            except ApiException as error:
                cluster_name, role_arn, cluster_tag, reader = self.refused_as
                method = str(args[1] if len(args) > 1 else kwargs.get("method", "")).upper()
                refused = access_denied(error, cluster_name, role_arn, cluster_tag, read=reader and method == "GET")
                if refused is None:
                    raise
                raise refused from None

    return GuardedApiClient


def access_denied(
    error: ApiException, cluster_name: str, role_arn: str, cluster_tag: str, *, read: bool
) -> ClusterAccessDeniedError | None:
    """The refusal of the signer as a typed error (`read`: a read of the view role, whose 403 is one too); None when
    `error` is not one (another status, or the answer of a service behind the API server's proxy)."""
    try:
        status = json.loads(error.body or "")
    except (TypeError, ValueError):
        return None
    if not isinstance(status, dict) or status.get("kind") != "Status":
        return None
    message = str(status.get("message") or "")
    details = {"eksClusterName": cluster_name, "roleArn": role_arn, "status": error.status}
    restore = (
        f"POST /clusters/{cluster_tag}/access re-runs stage 1's Ensure Access Entry step (resume the create or import "
        "operation instead while it has not succeeded), then retry."
    )
    if read and error.status == 403:
        return ClusterAccessDeniedError(
            f"The Kubernetes API of EKS cluster {cluster_name} refuses a read of the control plane's view role "
            f"{role_arn} ({message or error.reason}): its access entry lacks the Kubernetes group {VIEWERS_GROUP}, or "
            f"the cluster lacks the ClusterRole {VIEW_READER_ROLE} bound to it. Restore both: {restore}",
            details,
        )
    if error.status != 401:
        return None
    return ClusterAccessDeniedError(
        f"The Kubernetes API of EKS cluster {cluster_name} refuses the control plane ({error.status}: "
        f"{message or error.reason}): the cluster's access entry for the control plane's role {role_arn} is missing. "
        f"Restore access: {restore}",
        details,
    )
