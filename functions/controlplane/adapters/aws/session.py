"""boto3 clients, built on first use and cached per (service, Region) for the life of the process."""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

import boto3
from botocore.config import Config
from botocore.loaders import create_loader
from botocore.regions import EndpointResolver

_RETRIES = Config(retries={"mode": "standard", "max_attempts": 5})
_lock = threading.Lock()


@cache
def _session() -> boto3.session.Session:
    return boto3.session.Session()


@cache
def _client(service: str, region: str | None) -> Any:
    return _session().client(service, region_name=region, config=_RETRIES)  # type: ignore[call-overload]


def client(service: str, region: str | None = None) -> Any:
    """A shared client; creation is serialized because boto3 sessions are not thread-safe."""
    with _lock:
        return _client(service, region)


def session() -> boto3.session.Session:
    return _session()


def partition(region: str | None = None) -> str:
    """The ARN partition of a Region (`aws`, `aws-cn`, `aws-us-gov`); without one, of the Region the code runs in."""
    return str(_session().get_partition_for_region(region or _session().region_name or "us-east-1"))


@cache
def _endpoints() -> EndpointResolver:
    """botocore's partition and endpoint data (the `endpoints` file it ships), read once per process."""
    return EndpointResolver(create_loader().load_data("endpoints"))


def dns_suffix(region: str) -> str:
    """The DNS suffix of a Region's partition in botocore's partition data: `amazonaws.com` (aws, aws-us-gov),
    `amazonaws.com.cn` (aws-cn), …; a Region botocore does not list falls in the partition its name matches."""
    return partition_dns_suffix(_endpoints().get_partition_for_region(region))


def partition_dns_suffix(partition_name: str) -> str:
    """The DNS suffix of a partition (`aws-cn` → `amazonaws.com.cn`), from botocore's partition data."""
    suffix = _endpoints().get_partition_dns_suffix(partition_name)
    if suffix is None:
        raise ValueError(f"botocore knows no partition {partition_name!r}")
    return str(suffix)


def tag_list(tags: dict[str, str]) -> list[dict[str, str]]:
    return [{"Key": key, "Value": value} for key, value in tags.items()]


def tag_dict(tags: list[dict[str, str]] | None) -> dict[str, str]:
    return {tag["Key"]: tag["Value"] for tag in tags or []}


def error_code(error: Exception) -> str:
    response = getattr(error, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))
