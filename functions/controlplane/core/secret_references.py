"""A workload's reference to a Secret that holds a Hugging Face token (a model server's `huggingFaceTokenSecret`, a
download's `tokenSecret`, an endpoint's `huggingFace.tokenSecret`): the Secret must exist in the workload's namespace,
carry the control plane's ownership label and hold the token under `token`. So no request puts someone else's Secret
(a service account's token, …) into a container's environment. Each refusal names the Secret and how to fix it.
"""

from __future__ import annotations

from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import SecretGateway, SecretReadRefusedError
from controlplane.core.storage.namespace import SECRET_READER_ROLE
from controlplane.models.clusters import ClusterRecord
from controlplane.models.downloads import OWNED_SECRET_LABEL, SECRET_TOKEN_KEY
from controlplane.models.errors import (
    ClusterAccessDeniedError,
    ForeignResourceError,
    InvalidRequestError,
    NotFoundError,
)


class SecretNotFoundError(NotFoundError):
    code = "SecretNotFound"


def require_owned_secret(
    secrets: SecretGateway,
    record: ClusterRecord,
    cluster: EksCluster,
    secret: tuple[str, str],
    field: str,
    token_field: str | None = None,
) -> None:
    """Refuse the request unless `secret` (namespace, name), which the request's `field` names, is the control
    plane's and holds a token; `token_field` is the request's field that takes the token itself, if it has one."""
    namespace, name = secret
    details = {"field": field, "namespace": namespace, "secret": name, "label": OWNED_SECRET_LABEL}
    try:
        facts = secrets.secret(cluster, record.region, namespace, name)
    except SecretReadRefusedError:
        raise ClusterAccessDeniedError(
            f"Cluster '{record.clusterTag}' does not let the control plane read Secrets in namespace {namespace} "
            f"(its Role {SECRET_READER_ROLE} is missing), so `{field}` cannot be checked. Run the storage stage again "
            f"(POST /clusters/{record.clusterTag}/storage with namespace {namespace}), which applies that Role.",
            details,
        ) from None
    label = f"kubectl label secret {name} -n {namespace} {OWNED_SECRET_LABEL}"
    if facts is None:
        create = (
            f"create it with the token under `{SECRET_TOKEN_KEY}` and label it as the control plane's: kubectl create "
            f"secret generic {name} -n {namespace} --from-literal={SECRET_TOKEN_KEY}=<token> && {label}"
        )
        if token_field:
            create = (
                f"pass the token itself in `{token_field}` (the control plane keeps it in its own Secret), or {create}"
            )
        raise SecretNotFoundError(f"`{field}` names Secret {namespace}/{name}, which does not exist: {create}", details)
    if facts.labels.get(MANAGED_LABEL) != MANAGED_LABEL_VALUE:
        raise ForeignResourceError(
            f"Secret {namespace}/{name} (`{field}`) is not the control plane's: it lacks the label "
            f"{OWNED_SECRET_LABEL}, and workloads read only Secrets the control plane owns. If it holds a token meant "
            f"for InstantStart's workloads, label it: {label}",
            details,
        )
    if SECRET_TOKEN_KEY not in facts.keys:
        raise InvalidRequestError(
            f"Secret {namespace}/{name} (`{field}`) has no `{SECRET_TOKEN_KEY}` key, which the workload reads its "
            f"token from; put the token under `{SECRET_TOKEN_KEY}`, or name another Secret.",
            details,
        )
