"""Pydantic contracts shared by the REST API, the MCP tools and the workflow steps."""
