"""What moto lacks for FSx for Lustre: a ``Lifecycle`` (CREATING → AVAILABLE, DELETING → gone, each after a
delay), ``LustreConfiguration.MountName``, and idempotent CreateFileSystem by ``ClientRequestToken``.

Patches moto's FSx backend and file system model. Status changes are lazy, like the other extensions:
DescribeFileSystems first advances the Region's file systems whose delay has elapsed. moto already generates
``DNSName``.
"""

from __future__ import annotations

import secrets
import string
import time
from dataclasses import dataclass
from typing import Any

from moto.fsx.models import FileSystem, FSxBackend

from sandbox.aws.patches import Patches

_MOUNT_ALPHABET = string.ascii_lowercase + string.digits


@dataclass
class _Lifecycle:
    """What the sandbox adds to one of moto's file systems: its status since when, and the token that created it."""

    status: str
    since: float
    client_request_token: str


class FsxExtension:
    def __init__(self, seconds_to_available: float) -> None:
        # How long a file system takes to be created or deleted; a benchmark may set it.
        self.seconds = seconds_to_available
        self._patches = Patches()
        self._lifecycles: dict[str, _Lifecycle] = {}

    def install(self) -> None:
        extension, lifecycles = self, self._lifecycles
        create, describe, delete = (
            FSxBackend.create_file_system,
            FSxBackend.describe_file_systems,
            FSxBackend.delete_file_system,
        )
        to_dict = FileSystem.to_dict

        def create_file_system(backend: FSxBackend, client_request_token: str, *args: Any, **kwargs: Any) -> Any:
            for existing in backend.file_systems.values():
                known = lifecycles.get(existing.file_system_id)
                if client_request_token and known is not None and known.client_request_token == client_request_token:
                    return existing
            created = create(backend, client_request_token, *args, **kwargs)
            lifecycles[created.file_system_id] = _Lifecycle("CREATING", time.monotonic(), client_request_token)
            if created.file_system_type == "LUSTRE":
                mount_name = "".join(secrets.choice(_MOUNT_ALPHABET) for _ in range(8))
                created.lustre_configuration = {**(created.lustre_configuration or {}), "MountName": mount_name}
            return created

        def describe_file_systems(backend: FSxBackend, *args: Any, **kwargs: Any) -> Any:
            extension._advance(backend)
            return describe(backend, *args, **kwargs)

        def delete_file_system(backend: FSxBackend, file_system_id: str, *args: Any, **kwargs: Any) -> Any:
            found = backend.file_systems.get(file_system_id)
            if found is None or found.file_system_type != "LUSTRE":
                return delete(backend, file_system_id, *args, **kwargs)
            lifecycle = lifecycles[file_system_id]
            if lifecycle.status != "DELETING":
                lifecycle.status, lifecycle.since = "DELETING", time.monotonic()
            return file_system_id, "DELETING", None, {}, None

        def file_system_dict(file_system: FileSystem) -> dict[str, Any]:
            lifecycle = lifecycles.get(file_system.file_system_id)
            return {**to_dict(file_system), "Lifecycle": lifecycle.status if lifecycle else "AVAILABLE"}

        self._patches.replace(FSxBackend, "create_file_system", create_file_system)
        self._patches.replace(FSxBackend, "describe_file_systems", describe_file_systems)
        self._patches.replace(FSxBackend, "delete_file_system", delete_file_system)
        self._patches.replace(FileSystem, "to_dict", file_system_dict)

    def uninstall(self) -> None:
        self._patches.restore()

    def _advance(self, backend: FSxBackend) -> None:
        now = time.monotonic()
        for file_system_id in list(backend.file_systems):
            lifecycle = self._lifecycles.get(file_system_id)
            if lifecycle is None or now - lifecycle.since < self.seconds:
                continue
            if lifecycle.status == "CREATING":
                lifecycle.status = "AVAILABLE"
            elif lifecycle.status == "DELETING":
                backend.file_systems.pop(file_system_id)
                del self._lifecycles[file_system_id]
