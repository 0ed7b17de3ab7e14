"""The skills and the Kiro agent say what the server serves: every tool they name exists, every example call's
arguments pass its published schema, the wait cap they quote is the server's, and the agent prompt names every
skill and every destructive tool (issue 30, finding 10)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from api.app import openapi_document
from mcp_server.tools import MAX_WAIT_SECONDS, ToolSpec, tools_from_openapi

ROOT = Path(__file__).resolve().parents[3]
SKILLS = sorted(ROOT.glob("skills/*/SKILL.md"))
AGENT = ROOT / ".kiro/agents/hypd-inst-agent.json"
# A JSON example of a call, one line: {"tool": "...", "arguments": {...}}.
EXAMPLE = re.compile(r'^\{"tool": .*\}$', re.MULTILINE)
CODE = re.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`")
# What one wait is said to last: "one call waits up to 240 s", "each call waits at most 240 seconds".
CAP = re.compile(r"(?:call|wait) (?:waits|lasts) (?:up to|at most) (\w+ (?:s|seconds|minutes?))\b", re.IGNORECASE)
# "`tool` with `a`, `b` and `c`".
PROSE_CALL = re.compile(r"`([a-z0-9_]+)` with ((?:`\w+`(?:, | and | or )?)+)")


@pytest.fixture(scope="module")
def specs() -> dict[str, ToolSpec]:
    return {spec.name: spec for spec in tools_from_openapi(openapi_document())}


def texts() -> list[tuple[str, str]]:
    agent = json.loads(AGENT.read_text())
    return [(path.parent.name, path.read_text()) for path in SKILLS] + [("agent prompt", agent["prompt"])]


def named_tools(text: str, specs: dict[str, ToolSpec]) -> set[str]:
    """Backticked or bare snake_case words that begin like a tool (cluster_…, job_…), so a misspelt one counts."""
    prefixes = {name.split("_")[0] for name in specs}
    words = set(CODE.findall(text)) | set(re.findall(r"\b([a-z]+(?:_[a-z0-9]+)+)\b", text))
    return {word for word in words if word.split("_")[0] in prefixes}


@pytest.mark.parametrize(("source", "text"), texts(), ids=[name for name, _ in texts()])
def test_every_tool_named_exists(specs, source, text):
    assert sorted(named_tools(text, specs) - set(specs)) == []


@pytest.mark.parametrize(("source", "text"), texts(), ids=[name for name, _ in texts()])
def test_every_example_call_passes_the_tools_schema(specs, source, text):
    problems = []
    for example in EXAMPLE.findall(text):
        call = json.loads(example)
        schema = specs[call["tool"]].input_schema
        problems += [
            f"{call['tool']}: {error.message}" for error in Draft202012Validator(schema).iter_errors(call["arguments"])
        ]
    assert problems == []


@pytest.mark.parametrize(("source", "text"), texts(), ids=[name for name, _ in texts()])
def test_a_wait_lasts_what_the_server_caps_it_at(source, text):
    quoted = CAP.findall(" ".join(text.split()))
    assert [cap for cap in quoted if cap not in (f"{MAX_WAIT_SECONDS} s", f"{MAX_WAIT_SECONDS} seconds")] == []


@pytest.mark.parametrize(("source", "text"), texts(), ids=[name for name, _ in texts()])
def test_every_argument_named_in_prose_is_the_tools(specs, source, text):
    """`job_get_status` with `clusterTag` and `jobName`: each argument named after a tool is one of its own."""
    wrong = []
    for tool, arguments in PROSE_CALL.findall(" ".join(text.split())):
        if tool in specs:
            properties = specs[tool].input_schema["properties"]
            wrong += [f"{tool}: {name}" for name in re.findall(r"`(\w+)`", arguments) if name not in properties]
    assert wrong == []


def test_the_agent_prompt_names_every_skill_and_every_destructive_tool(specs):
    prompt = json.loads(AGENT.read_text())["prompt"]
    assert [path.parent.name for path in SKILLS if path.parent.name not in prompt] == []
    destructive = [name for name, spec in specs.items() if spec.annotations.destructive_hint]
    assert [name for name in destructive if name not in prompt] == []


def test_the_agent_starts_from_a_fresh_clone_through_make_with_no_fixed_port():
    server = json.loads(AGENT.read_text())["mcpServers"]["hypd-inst"]
    launch = " ".join([server["command"], *server["args"]])
    assert ".venv" not in launch and "8000" not in launch
    assert launch.startswith("make ") and launch.endswith(" agent-mcp")
    assert re.search(r"^agent-mcp:", (ROOT / "Makefile").read_text(), re.MULTILINE)
