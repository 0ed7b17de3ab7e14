"""What moto gets wrong for S3 bucket policies: a Deny statement whose condition does not hold.

moto evaluates a bucket policy without a request context and treats any statement whose condition it cannot
match as a denial, so the standard TLS-only statement (Deny unless ``aws:SecureTransport``) refuses every
request. Every request in the sandbox stands for an HTTPS call to S3, so that one statement never applies;
every other statement is evaluated by moto as before. Patches moto's ``FakeBucket.get_permission``.
"""

from __future__ import annotations

import json
from typing import Any

from moto.iam.access_control import IAMPolicy, PermissionResult
from moto.s3.models import FakeBucket

from sandbox.aws.patches import Patches

_INSECURE_TRANSPORT = {"Bool": {"aws:SecureTransport": "false"}}


class S3Extension:
    def __init__(self) -> None:
        self._patches = Patches()

    def install(self) -> None:
        original = FakeBucket.get_permission

        def get_permission(bucket: Any, action: str, resource: str) -> Any:
            if bucket.policy is None:
                return original(bucket, action, resource)
            policy = json.loads(bucket.policy)
            statements = policy["Statement"] if isinstance(policy["Statement"], list) else [policy["Statement"]]
            kept = [s for s in statements if not (s["Effect"] == "Deny" and s.get("Condition") == _INSECURE_TRANSPORT)]
            if len(kept) == len(statements):
                return original(bucket, action, resource)
            if not kept:
                return PermissionResult.NEUTRAL
            return IAMPolicy(json.dumps({**policy, "Statement": kept})).is_action_permitted(action, resource)

        self._patches.replace(FakeBucket, "get_permission", get_permission)

    def uninstall(self) -> None:
        self._patches.restore()
