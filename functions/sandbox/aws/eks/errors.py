"""An EKS refusal: HTTP status, error code, message and the extra fields EKS puts in the error body."""

from __future__ import annotations


class EksError(Exception):
    def __init__(self, status: int, code: str, message: str, **fields: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
