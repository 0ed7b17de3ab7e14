"""S3 buckets with tags and objects, and FSx for Lustre file systems found by their tags."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

from controlplane.core.ports.storage import LustreFileSystem, LustreSpec, ObjectListing, StoredObject


@dataclass
class Bucket:
    tags: dict[str, str]
    objects: dict[str, bytes] = field(default_factory=dict)


class InMemoryBucketGateway:
    def __init__(self) -> None:
        self.buckets: dict[str, Bucket] = {}

    def bucket_tags(self, bucket: str) -> dict[str, str] | None:
        found = self.buckets.get(bucket)
        return dict(found.tags) if found else None

    def create_bucket(self, bucket: str, tags: dict[str, str]) -> None:
        self.buckets.setdefault(bucket, Bucket(tags=dict(tags)))

    def put_object(self, bucket: str, key: str, body: bytes) -> None:
        self.buckets[bucket].objects[key] = body

    def object_body(self, bucket: str, key: str) -> bytes | None:
        found = self.buckets.get(bucket)
        return found.objects.get(key) if found else None

    def list_objects(self, bucket: str, prefix: str, limit: int, token: str | None) -> ObjectListing:
        keys = sorted(key for key in self.buckets[bucket].objects if key.startswith(prefix) and key > (token or ""))
        page = keys[:limit]
        items = [StoredObject(key, len(self.buckets[bucket].objects[key]), None) for key in page]
        return ObjectListing(items, page[-1] if len(keys) > limit else None)

    def delete_bucket(self, bucket: str) -> None:
        self.buckets.pop(bucket, None)


class InMemoryFileSystemGateway:
    """New file systems start CREATING; the same client token returns the same file system (as FSx does)."""

    def __init__(self) -> None:
        self.file_systems: dict[str, LustreFileSystem] = {}
        self.specs: dict[str, LustreSpec] = {}
        self._ids = itertools.count(1)

    def lustre_file_systems(self, tags: dict[str, str]) -> list[LustreFileSystem]:
        return [fs for fs in self.file_systems.values() if tags.items() <= fs.tags.items()]

    def create_lustre(self, spec: LustreSpec) -> LustreFileSystem:
        for file_system_id, known in self.specs.items():
            if known.client_token == spec.client_token:
                return self.file_systems[file_system_id]
        file_system = LustreFileSystem(
            file_system_id=f"fs-{next(self._ids):017x}",
            lifecycle="CREATING",
            dns_name=None,
            mount_name=None,
            storage_capacity_gib=spec.storage_capacity_gib,
            tags=dict(spec.tags),
        )
        self.file_systems[file_system.file_system_id] = file_system
        self.specs[file_system.file_system_id] = spec
        return file_system

    def set_lifecycle(self, file_system_id: str, lifecycle: str, failure: str | None = None) -> None:
        """Move a file system on (AVAILABLE gets its DNS and mount names, as FSx reports them)."""
        file_system = self.file_systems[file_system_id]
        self.file_systems[file_system_id] = replace(
            file_system,
            lifecycle=lifecycle,
            failure=failure,
            dns_name=f"{file_system_id}.fsx.example" if lifecycle == "AVAILABLE" else file_system.dns_name,
            mount_name="abcdefgh" if lifecycle == "AVAILABLE" else file_system.mount_name,
        )

    def delete_file_system(self, file_system_id: str) -> None:
        if file_system_id in self.file_systems:
            self.set_lifecycle(file_system_id, "DELETING")
