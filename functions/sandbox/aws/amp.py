"""Amazon Managed Service for Prometheus workspaces with their lifecycle: CreateWorkspace answers `CREATING` and the
workspace becomes `ACTIVE` a little later, DeleteWorkspace leaves it `DELETING` until it is gone (AMP API reference,
CreateWorkspace and DeleteWorkspace: both answer with that status; a workspace is usable once ACTIVE). moto makes a
workspace ACTIVE at once and forgets it at once, so a caller that never waits would pass here and fail in AWS.

Patches moto's AMP backend; status changes are lazy: DescribeWorkspace and ListWorkspaces advance a workspace once
``seconds`` have passed.
"""

from __future__ import annotations

import time
from typing import Any

from moto.amp.models import PrometheusServiceBackend

from sandbox.aws.patches import Patches


class AmpWorkspaces:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._since: dict[str, float] = {}  # workspace id → when its current transition began
        self._patches = Patches()

    def install(self) -> None:
        workspaces = self
        create, describe = PrometheusServiceBackend.create_workspace, PrometheusServiceBackend.describe_workspace
        listing = PrometheusServiceBackend.list_workspaces

        def create_workspace(backend: PrometheusServiceBackend, *args: Any, **kwargs: Any) -> Any:
            workspace = create(backend, *args, **kwargs)
            workspace.status = {"statusCode": "CREATING"}
            workspaces._since[workspace.workspace_id] = time.monotonic()
            return workspace

        def describe_workspace(backend: PrometheusServiceBackend, workspace_id: str) -> Any:
            workspaces._advance(backend)
            return describe(backend, workspace_id)

        def list_workspaces(backend: PrometheusServiceBackend, *args: Any, **kwargs: Any) -> Any:
            workspaces._advance(backend)
            return listing(backend, *args, **kwargs)

        def delete_workspace(backend: PrometheusServiceBackend, workspace_id: str) -> None:
            workspace = describe(backend, workspace_id)
            if workspace.status["statusCode"] != "DELETING":
                workspace.status = {"statusCode": "DELETING"}
                workspaces._since[workspace_id] = time.monotonic()

        self._patches.replace(PrometheusServiceBackend, "create_workspace", create_workspace)
        self._patches.replace(PrometheusServiceBackend, "describe_workspace", describe_workspace)
        self._patches.replace(PrometheusServiceBackend, "list_workspaces", list_workspaces)
        self._patches.replace(PrometheusServiceBackend, "delete_workspace", delete_workspace)

    def uninstall(self) -> None:
        self._patches.restore()

    def _advance(self, backend: PrometheusServiceBackend) -> None:
        now = time.monotonic()
        for workspace_id, workspace in list(backend.workspaces.items()):
            started = self._since.get(workspace_id)
            if started is None or now - started < self.seconds:
                continue
            del self._since[workspace_id]
            if workspace.status["statusCode"] == "CREATING":
                workspace.status = {"statusCode": "ACTIVE"}
            elif workspace.status["statusCode"] == "DELETING":
                backend.workspaces.pop(workspace_id, None)
