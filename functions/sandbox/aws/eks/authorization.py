"""Who may call the sandbox's emulated Kubernetes API servers, as EKS decides: the bearer token's signer (the role
whose credentials presigned its STS GetCallerIdentity URL) must have an access entry on the cluster that allows the
call, by its access policies or by the RBAC of the Kubernetes groups it names."""

from __future__ import annotations

import base64
from urllib.parse import parse_qs, urlparse

from moto.sts.models import sts_backends

from sandbox.aws.eks.access import AccessEntries
from sandbox.k8s.emulator import KubernetesEmulator
from sandbox.k8s.rbac import ApiAccess, rbac_allows


class KubernetesAuthorizer:
    def __init__(self, account: str, entries: AccessEntries, emulator: KubernetesEmulator) -> None:
        self._account = account
        self._entries = entries
        self._emulator = emulator

    def __call__(self, cluster: str, token: str, access: ApiAccess) -> bool | None:
        """Whether the call is allowed; None when no access entry of the cluster names the signer (EKS then answers
        401 Unauthorized: https://docs.aws.amazon.com/eks/latest/userguide/troubleshooting.html#unauthorized)."""
        principal = _token_access_key(token)
        backend = sts_backends[self._account]["aws"]
        assumed = backend.get_assumed_role_from_access_key(principal) if principal else None
        if assumed is None or not self._entries.has_entry(cluster, assumed.role_arn):
            return None
        if self._entries.allows(cluster, assumed.role_arn, access):
            return True
        groups = self._entries.groups(cluster, assumed.role_arn)
        return bool(groups) and rbac_allows(self._emulator.store(cluster), groups, access)


def _token_access_key(token: str) -> str | None:
    try:
        url = base64.urlsafe_b64decode(token.removeprefix("k8s-aws-v1.") + "==").decode()
    except ValueError:
        return None
    credential = parse_qs(urlparse(url).query).get("X-Amz-Credential", [""])[0]
    return credential.split("/")[0] or None
