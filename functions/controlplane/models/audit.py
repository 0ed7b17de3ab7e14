"""The audit record every mutating request writes, and the pages of the audit trail that read them back."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from controlplane.models.common import PageView, View


class AuditEntry(View):
    target: str = Field(description="The cluster tag the request named, else its (shortened) path.")
    at: datetime
    actor: str = Field(description="The authenticated caller (the MCP server's role when it acted for a user).")
    onBehalfOf: str | None = Field(default=None, description="The user the MCP server acted for, if any.")
    role: str = Field(description="The role the API enforced for the request.")
    action: str = Field(description="Method and path, e.g. `POST /clusters/demo/hyperpod`.")
    operationId: str | None = None
    requestId: str
    outcome: str = Field(description="The HTTP status of the response, refusals included.")


class AuditList(PageView):
    entries: list[AuditEntry]
