"""What moto lacks for FSx for Lustre: a `Lifecycle` (CREATING → AVAILABLE, DELETING → gone, each after a
delay), `LustreConfiguration.MountName`, and idempotent CreateFileSystem by `ClientRequestToken`.

Status changes are lazy, like the other extensions: DescribeFileSystems first advances the Region's file
systems whose delay has elapsed. moto already generates `DNSName`.
"""

from __future__ import annotations

import secrets
import string
import time
from typing import Any

from moto.fsx.models import FileSystem, FSxBackend

_MOUNT_ALPHABET = string.ascii_lowercase + string.digits


class FsxExtension:
    def __init__(self, seconds_to_available: float) -> None:
        self._seconds = seconds_to_available
        self._originals: dict[str, Any] = {}

    def install(self) -> None:
        extension = self
        self._originals = {
            "create_file_system": FSxBackend.create_file_system,
            "describe_file_systems": FSxBackend.describe_file_systems,
            "delete_file_system": FSxBackend.delete_file_system,
            "to_dict": FileSystem.to_dict,
        }
        originals = self._originals

        def create_file_system(backend: FSxBackend, client_request_token: str, *args: Any, **kwargs: Any) -> Any:
            for existing in backend.file_systems.values():
                if client_request_token and getattr(existing, "client_request_token", None) == client_request_token:
                    return existing
            created = originals["create_file_system"](backend, client_request_token, *args, **kwargs)
            created.client_request_token = client_request_token
            created.lifecycle = "CREATING"
            created.changed_at = time.monotonic()
            if created.file_system_type == "LUSTRE":
                mount_name = "".join(secrets.choice(_MOUNT_ALPHABET) for _ in range(8))
                created.lustre_configuration = {**(created.lustre_configuration or {}), "MountName": mount_name}
            return created

        def describe_file_systems(backend: FSxBackend, *args: Any, **kwargs: Any) -> Any:
            extension._advance(backend)
            return originals["describe_file_systems"](backend, *args, **kwargs)

        def delete_file_system(backend: FSxBackend, file_system_id: str, *args: Any, **kwargs: Any) -> Any:
            found = backend.file_systems.get(file_system_id)
            if found is None or found.file_system_type != "LUSTRE":
                return originals["delete_file_system"](backend, file_system_id, *args, **kwargs)
            if found.lifecycle != "DELETING":
                found.lifecycle = "DELETING"
                found.changed_at = time.monotonic()
            return file_system_id, "DELETING", None, {}, None

        def to_dict(file_system: FileSystem) -> dict[str, Any]:
            return {**originals["to_dict"](file_system), "Lifecycle": getattr(file_system, "lifecycle", "AVAILABLE")}

        FSxBackend.create_file_system = create_file_system  # type: ignore[method-assign]
        FSxBackend.describe_file_systems = describe_file_systems  # type: ignore[method-assign]
        FSxBackend.delete_file_system = delete_file_system  # type: ignore[method-assign]
        FileSystem.to_dict = to_dict  # type: ignore[method-assign]

    def uninstall(self) -> None:
        for name, original in self._originals.items():
            setattr(FileSystem if name == "to_dict" else FSxBackend, name, original)

    def _advance(self, backend: FSxBackend) -> None:
        now = time.monotonic()
        for file_system_id, file_system in list(backend.file_systems.items()):
            if now - getattr(file_system, "changed_at", now) < self._seconds:
                continue
            if file_system.lifecycle == "CREATING":
                file_system.lifecycle = "AVAILABLE"
            elif file_system.lifecycle == "DELETING":
                backend.file_systems.pop(file_system_id)
