"""Amazon Managed Service for Prometheus workspaces of one Region: where the observability add-on writes metrics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class PrometheusWorkspace:
    workspace_id: str
    arn: str
    status: str  # CREATING | ACTIVE | UPDATING | DELETING | CREATION_FAILED
    endpoint: str | None  # https://aps-workspaces.<region>.amazonaws.com/workspaces/<id>/ (remote write, queries)
    tags: dict[str, str] = field(default_factory=dict)


class PrometheusGateway(Protocol):
    def workspaces(self, alias: str) -> list[PrometheusWorkspace]:
        """The Region's workspaces with this alias (aliases are not unique), whoever made them."""
        ...

    def create_workspace(self, alias: str, tags: dict[str, str]) -> PrometheusWorkspace: ...

    def delete_workspace(self, workspace_id: str) -> None:
        """Start its deletion (a workspace already gone is done)."""
        ...
