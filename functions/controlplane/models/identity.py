"""Who the caller is, as the API sees it: the identity and role every route's permission is checked against."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from controlplane.models.common import View


class IdentityView(View):
    principal: str = Field(description="The Cognito user name or IAM principal ARN the request is for.")
    source: Literal["cognito", "iam"] = Field(description="How the principal signed in.")
    role: Literal["viewer", "operator", "admin"] = Field(description="The role the API enforces for this caller.")
    via: str | None = Field(
        default=None, description="The program that authenticated and acts for the principal (the MCP server), if any."
    )
