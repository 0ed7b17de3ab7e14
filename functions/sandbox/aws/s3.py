"""What moto gets wrong for S3: bucket ownership, and a bucket policy's Deny statement whose condition does not hold.

Bucket ownership: moto ignores ``ExpectedBucketOwner``. Here a request that names an expected owner is refused with
403 AccessDenied unless the bucket belongs to that account; :meth:`S3Extension.give_to_account` makes a bucket one
of another account's (a bucket with our name that someone else created first). Patches ``S3Response``.

Bucket policies: moto evaluates a bucket policy without a request context and treats any statement whose
condition it cannot match as a denial, so the standard TLS-only statement (Deny unless ``aws:SecureTransport``)
refuses every request. Every request in the sandbox stands for an HTTPS call to S3, so that one statement never applies;
every other statement is evaluated by moto as before. Patches moto's ``FakeBucket.get_permission``.
"""

from __future__ import annotations

import json
from typing import Any

from moto.iam.access_control import IAMPolicy, PermissionResult
from moto.s3.exceptions import S3AccessDeniedError
from moto.s3.models import FakeBucket
from moto.s3.responses import S3Response

from sandbox.aws.patches import Patches

_INSECURE_TRANSPORT = {"Bool": {"aws:SecureTransport": "false"}}


_EXPECTED_OWNER_HEADER = "x-amz-expected-bucket-owner"


class S3Extension:
    def __init__(self, account: str) -> None:
        self._account = account
        self._patches = Patches()
        # Bucket name → the other account that owns it.
        self._foreign: dict[str, str] = {}

    def give_to_account(self, bucket: str, account: str) -> None:
        """Make an existing bucket another account's, as if that account had created it."""
        self._foreign[bucket] = account

    def install(self) -> None:
        self._install_ownership()
        self._install_policy_evaluation()

    def _install_ownership(self) -> None:
        extension = self

        def checked(original: Any) -> Any:
            def respond(response: Any, request: Any, full_url: str) -> Any:
                expected = request.headers.get(_EXPECTED_OWNER_HEADER)
                bucket = response.parse_bucket_name_from_url(request, full_url)
                if expected and bucket and extension._foreign.get(bucket, extension._account) != expected:
                    raise S3AccessDeniedError()
                return original(response, request, full_url)

            return respond

        for name in ("_bucket_response", "_key_response"):
            self._patches.replace(S3Response, name, checked(getattr(S3Response, name)))

    def _install_policy_evaluation(self) -> None:
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
