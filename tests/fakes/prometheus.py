"""In-memory fake of the Prometheus workspace port (`core.ports.prometheus`)."""

from __future__ import annotations

from dataclasses import replace

from controlplane.core.ports.prometheus import PrometheusWorkspace

REGION = "us-west-2"
ACCOUNT = "123456789012"


class InMemoryPrometheusGateway:
    """Like AMP: a new workspace is CREATING and a deleted one DELETING until `settle()`; aliases are not unique."""

    def __init__(self) -> None:
        self.workspaces_by_id: dict[str, PrometheusWorkspace] = {}
        self.aliases: dict[str, str] = {}
        self._created = 0

    def workspaces(self, alias: str) -> list[PrometheusWorkspace]:
        return [w for key, w in self.workspaces_by_id.items() if self.aliases[key] == alias]

    def create_workspace(self, alias: str, tags: dict[str, str]) -> PrometheusWorkspace:
        self._created += 1
        workspace_id = f"ws-{self._created:08d}"
        workspace = PrometheusWorkspace(
            workspace_id=workspace_id,
            arn=f"arn:aws:aps:{REGION}:{ACCOUNT}:workspace/{workspace_id}",
            status="CREATING",
            endpoint=f"https://aps-workspaces.{REGION}.amazonaws.com/workspaces/{workspace_id}/",
            tags=dict(tags),
        )
        self.workspaces_by_id[workspace_id] = workspace
        self.aliases[workspace_id] = alias
        return workspace

    def delete_workspace(self, workspace_id: str) -> None:
        if workspace_id in self.workspaces_by_id:
            self.workspaces_by_id[workspace_id] = replace(self.workspaces_by_id[workspace_id], status="DELETING")

    def settle(self) -> None:
        for workspace_id, workspace in list(self.workspaces_by_id.items()):
            if workspace.status == "CREATING":
                self.workspaces_by_id[workspace_id] = replace(workspace, status="ACTIVE")
            elif workspace.status == "DELETING":
                del self.workspaces_by_id[workspace_id]
