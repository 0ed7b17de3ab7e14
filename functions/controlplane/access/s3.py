"""S3 grants: bucket and object actions on buckets of this account only (a bucket of our name elsewhere is someone
else's)."""

from __future__ import annotations

from controlplane.access.grant import Grant

_THIS_ACCOUNT_BUCKETS = {"StringEquals": {"s3:ResourceAccount": "{account}"}}


def buckets(actions: tuple[str, ...], resources: tuple[str, ...], reason: str) -> tuple[Grant, ...]:
    """Bucket and object actions on buckets of this account only. CreateBucket always creates in the caller's
    account (a name taken elsewhere fails with BucketAlreadyExists), so it is granted on its own."""
    grants = [Grant(tuple(a for a in actions if a != "s3:CreateBucket"), resources, _THIS_ACCOUNT_BUCKETS, reason)]
    if "s3:CreateBucket" in actions:
        grants.append(Grant(("s3:CreateBucket",), resources, reason=reason))
    return tuple(grants)
