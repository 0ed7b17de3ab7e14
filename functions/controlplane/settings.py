"""Process settings, read from the environment on first use (never at import)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Settings:
    operations_table: str
    clusters_table: str
    audit_table: str
    confirmations_table: str
    idempotency_table: str
    state_machine_arns: dict[str, str]
    kubernetes_role_arn: str
    iam_role_bindings: dict[str, str]
    poll_seconds: int
    poll_max_attempts: int


def _env(name: str, default: str | None = None) -> str:
    value = os.environ.get(name, default)
    if value is None:
        raise RuntimeError(f"Environment variable {name} is not set.")
    return value


@cache
def settings() -> Settings:
    return Settings(
        operations_table=_env("IS_OPERATIONS_TABLE"),
        clusters_table=_env("IS_CLUSTERS_TABLE"),
        audit_table=_env("IS_AUDIT_TABLE"),
        confirmations_table=_env("IS_CONFIRMATIONS_TABLE"),
        idempotency_table=_env("IS_IDEMPOTENCY_TABLE"),
        state_machine_arns=json.loads(_env("IS_STATE_MACHINE_ARNS", "{}")),
        kubernetes_role_arn=_env("IS_KUBERNETES_ROLE_ARN", ""),
        iam_role_bindings=json.loads(_env("IS_IAM_ROLE_BINDINGS", "{}")),
        poll_seconds=int(_env("IS_POLL_SECONDS", "30")),
        poll_max_attempts=int(_env("IS_POLL_MAX_ATTEMPTS", "120")),
    )
