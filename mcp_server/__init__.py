"""The agent face of InstantStart: an MCP server whose tools are the REST API's operations.

`tools` translates the API's OpenAPI document into tool specs, `client` calls the API over HTTP
with the server's own identity (a bearer token, or `sigv4` with its IAM role), `server` serves the
specs as MCP tools (with the `operation_wait` loop), `auth` verifies callers, `http` is the
streamable-HTTP ASGI app, `lambda_handler` serves it from API Gateway events and `__main__` is the
stdio entry point. The package talks to the API only over HTTP: it imports nothing from the control
plane's code.
"""
