"""A cluster's refusal of the control plane itself, as one typed error: every call of a client the factory builds
turns the API server's 401 (no access entry of the cluster names the signer, as when a fault stopped stage 1 at Ensure
Access Entry: https://docs.aws.amazon.com/eks/latest/userguide/troubleshooting.html#unauthorized) into
ClusterAccessDeniedError, whichever route or step made the call. A 403 (RBAC refusing a call the signer's entry does
not allow, a protected namespace) is about the call, not the access, and stays as it is.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from controlplane.models.errors import ClusterAccessDeniedError

if TYPE_CHECKING:
    from kubernetes.client import ApiClient, Configuration
    from kubernetes.client.exceptions import ApiException


def guarded_client(configuration: Configuration, cluster_name: str, role_arn: str) -> ApiClient:
    """An API client of `cluster_name`, signed as `role_arn`, whose refusals of the signer are typed."""
    client: ApiClient = _guarded_class()(configuration)
    client.refused_as = (cluster_name, role_arn)  # type: ignore[attr-defined]
    return client


@cache
def _guarded_class() -> type[ApiClient]:
    from kubernetes.client import ApiClient
    from kubernetes.client.exceptions import ApiException

    class GuardedApiClient(ApiClient):  # type: ignore[misc]
        refused_as: tuple[str, str]

        def call_api(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().call_api(*args, **kwargs)
            except ApiException as error:
                refused = access_denied(error, *self.refused_as)
                if refused is None:
                    raise
                raise refused from None

    return GuardedApiClient


def access_denied(error: ApiException, cluster_name: str, role_arn: str) -> ClusterAccessDeniedError | None:
    """The refusal of the signer as a typed error; None when `error` is not one (another status, or the answer of a
    service behind the API server's proxy)."""
    try:
        status = json.loads(error.body or "")
    except (TypeError, ValueError):
        return None
    if not isinstance(status, dict) or status.get("kind") != "Status":
        return None
    if error.status != 401:
        return None
    message = str(status.get("message") or "")
    return ClusterAccessDeniedError(
        f"The Kubernetes API of EKS cluster {cluster_name} refuses the control plane ({error.status}: "
        f"{message or error.reason}): the cluster's access entry for the control plane's role {role_arn} is missing. "
        "Restore access by resuming the cluster's create operation (POST "
        "/operations/{operationId}/resume re-runs stage 1's Ensure Access Entry step), or re-create that access "
        "entry with its access policy, then retry.",
        {"eksClusterName": cluster_name, "roleArn": role_arn, "status": error.status},
    )
