"""boto3 clients, built on first use and cached per (service, Region) for the life of the process."""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

import boto3
from botocore.config import Config

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


def tag_list(tags: dict[str, str]) -> list[dict[str, str]]:
    return [{"Key": key, "Value": value} for key, value in tags.items()]


def tag_dict(tags: list[dict[str, str]] | None) -> dict[str, str]:
    return {tag["Key"]: tag["Value"] for tag in tags or []}


def error_code(error: Exception) -> str:
    response = getattr(error, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))
