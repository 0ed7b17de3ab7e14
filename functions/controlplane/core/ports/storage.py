"""S3 buckets and FSx for Lustre file systems."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True)
class StoredObject:
    key: str
    size: int
    last_modified: datetime | None


@dataclass(frozen=True)
class ObjectListing:
    items: list[StoredObject]
    next_token: str | None


class BucketGateway(Protocol):
    def bucket_tags(self, bucket: str) -> dict[str, str] | None:
        """The bucket's tags, or None if the bucket does not exist; ForeignResourceError if it belongs to another
        account or cannot be read."""

    def create_bucket(self, bucket: str, tags: dict[str, str]) -> None:
        """Private, encrypted, TLS-only bucket in the gateway's Region."""

    def put_object(self, bucket: str, key: str, body: bytes) -> None: ...

    def object_body(self, bucket: str, key: str) -> bytes | None: ...

    def list_objects(self, bucket: str, prefix: str, limit: int, token: str | None) -> ObjectListing:
        """A page of the objects under `prefix`, by key; None as `next_token` on the last page."""

    def delete_bucket(self, bucket: str) -> None:
        """Delete every object version, then the bucket; absent is fine."""


@dataclass(frozen=True)
class LustreFileSystem:
    file_system_id: str
    lifecycle: str
    dns_name: str | None
    mount_name: str | None
    storage_capacity_gib: int
    tags: dict[str, str]
    failure: str | None = None


@dataclass(frozen=True)
class LustreSpec:
    storage_capacity_gib: int
    deployment_type: str
    per_unit_storage_throughput: int | None
    subnet_id: str
    security_group_ids: tuple[str, ...]
    tags: dict[str, str]
    client_token: str


class FileSystemGateway(Protocol):
    """FSx for Lustre file systems in one Region, found by their tags."""

    def lustre_file_systems(self, tags: dict[str, str]) -> list[LustreFileSystem]:
        """Every Lustre file system carrying all of `tags`, in any lifecycle (DELETING included)."""

    def create_lustre(self, spec: LustreSpec) -> LustreFileSystem: ...

    def delete_file_system(self, file_system_id: str) -> None:
        """Delete without a final backup; absent is fine."""
