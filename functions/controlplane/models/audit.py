"""The audit record every mutating request writes."""

from __future__ import annotations

from datetime import datetime

from controlplane.models.common import View


class AuditEntry(View):
    target: str
    at: datetime
    actor: str
    onBehalfOf: str | None = None
    role: str
    action: str
    operationId: str | None = None
    requestId: str
    outcome: str
