"""The audit trail: reads of the record every mutating request writes (`api.audit` writes it)."""

from __future__ import annotations

from controlplane.core.paging import Page
from controlplane.core.ports.persistence import AuditLog, AuditQuery
from controlplane.models.audit import AuditEntry
from controlplane.models.common import DEFAULT_PAGE_SIZE


class AuditTrail:
    def __init__(self, log: AuditLog) -> None:
        self._log = log

    def page(self, query: AuditQuery, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None) -> Page[AuditEntry]:
        """A page of the entries `query` matches, newest first."""
        return self._log.page(query, limit, token)
