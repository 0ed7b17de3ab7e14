"""The remote MCP server's role: it calls the API as itself, over the SigV4 routes only; it touches no table and no
AWS resource. The API still authorizes each call (the weaker of the server's and its user's role)."""

from __future__ import annotations

from controlplane.access.grant import FunctionAccess, Grant

MCP_ACCESS = FunctionAccess(
    (
        Grant(
            ("execute-api:Invoke",),
            ("arn:{partition}:execute-api:{region}:{account}:{rest_api_id}/{stage}/*/iam/*",),
            reason="The MCP server's tools are the API's operations, so it may call every method of the SigV4 "
            "routes (/iam/*) of this API's stage, and nothing else: not the Cognito routes, not other APIs",
        ),
    ),
    tables=(),
)
