"""Who is calling, and what their role allows."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Literal

from controlplane.models.errors import ForbiddenError


class Role(IntEnum):
    """Roles are ordered: each includes the rights of the ones below it."""

    VIEWER = 1
    OPERATOR = 2
    ADMIN = 3

    @classmethod
    def parse(cls, name: str) -> Role | None:
        return cls.__members__.get(name.strip().upper())


@dataclass(frozen=True)
class Actor:
    """`principal` is the person or program the request is for, signed in through `source` (a Cognito user or
    an IAM principal); `via` is the program that authenticated and acts for them (the MCP server's role), if any."""

    principal: str
    role: Role
    request_id: str = ""
    via: str | None = None
    source: Literal["cognito", "iam"] = "iam"

    def require(self, role: Role, action: str) -> None:
        if self.role < role:
            raise ForbiddenError(
                f"'{action}' needs the {role.name.lower()} role; {self.principal} has {self.role.name.lower()}.",
                {"requiredRole": role.name.lower(), "role": self.role.name.lower()},
            )


def strongest_role(groups: list[str]) -> Role | None:
    """The highest role named in a list of group names (Cognito groups), or None."""
    roles = [role for role in (Role.parse(group) for group in groups) if role is not None]
    return max(roles) if roles else None
