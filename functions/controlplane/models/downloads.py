"""Downloads into the S3 claim and the claim's contents: the download request (one contract for REST, MCP and
the console), the plan its workflow carries, and the contents page.

The request may carry a Hugging Face token; it goes into a Kubernetes Secret when the request is accepted and
never into the plan, the operation record, a response or a log (`DownloadPlan` names the Secret only).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, SecretStr, StringConstraints, model_validator

from controlplane.models.common import Contract, PageView, View

# A Hugging Face repository id: `name` or `owner/name`, letters, digits, `-`, `_`, `.`.
REPO_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$"
# A prefix in the claim: path segments of safe characters, no `..`, no leading or trailing slash.
PREFIX_PATTERN = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}(/[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}){0,7}$"
SECRET_NAME_PATTERN = r"^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$"
# The key of the Secret that holds the token (a Secret the request names must hold it under this key).
SECRET_TOKEN_KEY = "token"
# The label a Secret a request names must carry: the control plane's ownership label (`core.naming.MANAGED_LABEL`).
OWNED_SECRET_LABEL = "app.kubernetes.io/managed-by=instantstart"
# What a Secret a request names must be, as the tools' argument descriptions say it (a refusal names the full label).
MANAGED_SECRET = f"key `{SECRET_TOKEN_KEY}`, label managed-by=instantstart"


def _not_blank(token: SecretStr) -> SecretStr:
    if not token.get_secret_value().strip():
        raise ValueError("an empty token is no token: give the Hugging Face token, or leave the field out")
    return token


# A Hugging Face token a request carries: text, never blank (which would read as no token where a token was given).
HuggingFaceToken = Annotated[SecretStr, Field(max_length=512), AfterValidator(_not_blank)]
RepoId = Annotated[str, StringConstraints(pattern=REPO_ID_PATTERN)]
Prefix = Annotated[str, StringConstraints(pattern=PREFIX_PATTERN)]
SecretName = Annotated[str, StringConstraints(pattern=SECRET_NAME_PATTERN)]


class DownloadRequest(Contract):
    """A Hugging Face model or dataset to copy into the cluster's S3 claim, at `<prefix>/<repoId>`."""

    repoId: RepoId = Field(description="e.g. `Qwen/Qwen2.5-0.5B`.")
    repoType: Literal["model", "dataset"] = "model"
    revision: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9._/-]{1,128}$")] = Field(
        default="main", description="Branch, tag or commit."
    )
    prefix: Prefix | None = Field(default=None, description="Default: `models` or `datasets`.")
    sizeGiB: int = Field(default=20, ge=1, le=2000, description="Expected size: sets how long the operation waits.")
    token: HuggingFaceToken | None = Field(
        default=None,
        description="For gated or private repositories; kept only in a Kubernetes Secret.",
    )
    tokenSecret: SecretName | None = Field(
        default=None,
        description=f"Instead of `token`: a Secret of the claim's namespace ({MANAGED_SECRET}).",
    )

    @model_validator(mode="after")
    def _one_token_source(self) -> DownloadRequest:
        if self.token is not None and self.tokenSecret is not None:
            raise ValueError("Pass either `token` or `tokenSecret`, not both.")
        return self

    @property
    def target_prefix(self) -> str:
        return self.prefix or f"{self.repoType}s"


class DownloadPlan(View):
    """What the download's workflow runs: the Job (in the claim's namespace, mounting the claim at /s3) that writes
    `<prefix>/<repoId>`, the Secret it reads the token from (by name only), and how long to wait for it."""

    jobName: str
    namespace: str
    claimName: str
    bucketName: str
    repoId: str
    repoType: Literal["model", "dataset"]
    revision: str
    prefix: str
    tokenSecret: str | None = None
    deadlineSeconds: int

    @property
    def key_prefix(self) -> str:
        """Where in the bucket the download lands (the claim mounts the bucket's root at /s3)."""
        return f"{self.prefix}/{self.repoId}"


class StorageObject(View):
    key: str
    size: int
    lastModified: datetime | None = None


class StorageContents(PageView):
    """A page of the objects in the cluster's S3 claim under `prefix`, by key."""

    clusterTag: str
    bucketName: str
    prefix: str
    objects: list[StorageObject]
