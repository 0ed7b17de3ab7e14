"""The agent face of InstantStart: an MCP server whose tools are the REST API's operations.

`tools` translates the API's OpenAPI document into tool specs, `client` calls the API over HTTP
with the server's own identity, `server` serves the specs as MCP tools (with the `operation_wait`
loop), `http` is the streamable-HTTP ASGI app and `__main__` the stdio entry point. The package
talks to the API only over HTTP: it imports nothing from the control plane's code.
"""
