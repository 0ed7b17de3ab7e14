"""Agent-facing text names tools and arguments, never REST verbs, paths or status codes, and names a tool once per
description: every description of the tool list and of its arguments (issue 30, finding 6)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from api.app import openapi_document
from mcp_server.server import INSTRUCTIONS
from mcp_server.tools import tools_from_openapi
from mcp_server.wording import Vocabulary

# REST verbs and paths, HTTP, and the status codes the API answers with (not a number in a list of values).
REST = re.compile(
    r"\b(?:GET|POST|PUT|PATCH|DELETE) ?/|\b(?:PATCH|POST|PUT)\b|\bHTTP\b"
    r"|(?<!, )\b(?:20[0-4]|40[0-9]|42[29]|50[0-4])\b(?! or \d)"
)
TOOLS = [spec.tool() for spec in tools_from_openapi(openapi_document())]
NAMES = [tool.name for tool in TOOLS]


def descriptions(schema: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every description in a schema, with where it sits."""
    if isinstance(schema, dict):
        if isinstance(schema.get("description"), str):
            yield where, schema["description"]
        for key, value in schema.items():
            yield from descriptions(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from descriptions(value, f"{where}/{index}")


def texts() -> list[tuple[str, str]]:
    found = [("instructions", INSTRUCTIONS)]
    for tool in TOOLS:
        found.append((tool.name, tool.description or ""))
        found += descriptions(tool.input_schema, f"{tool.name} input")
    return found


def test_no_text_speaks_rest():
    leaks = [f"{where}: {match.group(0)!r} in {text!r}" for where, text in texts() for match in REST.finditer(text)]
    assert leaks == []


@pytest.mark.parametrize("tool", TOOLS, ids=NAMES)
def test_a_description_names_each_tool_once(tool):
    text = tool.description or ""
    assert [name for name in NAMES if len(re.findall(rf"\b{name}\b", text)) > 1] == []


def test_the_next_step_is_the_last_sentence_naming_another_tool_and_none_without_one():
    vocabulary = Vocabulary([("GET", "/jobs", "job_list"), ("GET", "/jobs/{name}", "job_get")])
    alone = Vocabulary([("GET", "/jobs", "job_list")])
    text = "Lists jobs. GET /jobs/{name} reads one. job_list pages them. Poll job_get until done."

    assert vocabulary.next_step(text, "job_list") == "Poll job_get until done."
    assert vocabulary.next_step("Lists jobs. Then more.", "job_list") is None
    assert alone.next_step("Lists jobs. Then more.", "job_list") is None


def test_a_route_that_ends_a_sentence_keeps_its_stop():
    vocabulary = Vocabulary([("GET", "/jobs/{name}/history", "job_history")])

    assert vocabulary.translate("A job's own is GET /jobs/demo/history.") == "A job's own is `job_history`."
