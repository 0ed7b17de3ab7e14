"""IAM policy documents the control plane writes: trust policies and least-privilege grants."""

from __future__ import annotations

from typing import Any

VERSION = "2012-10-17"


def service_trust(service_principal: str, actions: tuple[str, ...] = ("sts:AssumeRole",)) -> dict[str, Any]:
    """Trust an AWS service (e.g. eks.amazonaws.com) to assume the role."""
    action: str | list[str] = actions[0] if len(actions) == 1 else list(actions)
    return {
        "Version": VERSION,
        "Statement": [{"Effect": "Allow", "Principal": {"Service": service_principal}, "Action": action}],
    }


def service_statement(service_principal: str, source_arn: str) -> dict[str, Any]:
    """A trust statement for an AWS service acting for resources of one account and Region (confused deputy)."""
    return {
        "Effect": "Allow",
        "Principal": {"Service": service_principal},
        "Action": "sts:AssumeRole",
        "Condition": {"ArnLike": {"aws:SourceArn": source_arn}},
    }


def web_identity_trust(provider_arn: str, issuer_url: str, namespace: str, service_account: str) -> dict[str, Any]:
    """IRSA: trust exactly one Kubernetes ServiceAccount of one cluster, through the cluster's OIDC provider."""
    issuer = issuer_url.removeprefix("https://")
    return {
        "Version": VERSION,
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Federated": provider_arn},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {
                    "StringEquals": {
                        f"{issuer}:aud": "sts.amazonaws.com",
                        f"{issuer}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                    }
                },
            }
        ],
    }


def s3_bucket_access(bucket_patterns: list[str]) -> dict[str, Any]:
    """Read and write objects in the named buckets (Mountpoint for S3 needs list, get, put, delete)."""
    buckets = [f"arn:aws:s3:::{pattern}" for pattern in bucket_patterns]
    return {
        "Version": VERSION,
        "Statement": [
            {"Sid": "ListBuckets", "Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": buckets},
            {
                "Sid": "ReadWriteObjects",
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
                "Resource": [f"{bucket}/*" for bucket in buckets],
            },
        ],
    }
