"""The API's words put in an agent's: REST routes become the tools that call them, status codes what they mean.

Belongs here: `Vocabulary`, which rewrites the text the API writes for people reading its REST face (route
descriptions, field descriptions, error messages) into text naming tools and arguments only. Not here: the lead
sentences of results (`leads`) or building tool specs (`tools`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# A route cited in text; a sentence's closing stop is not part of its path.
ROUTE = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE) (/(?:[^\s,;()'\"`]*[^\s,;()'\"`.])?)")
# Where one sentence ends and the next begins: a stop (not that of "e.g." or "i.e."), then a word, a backtick or an
# opening bracket (a sentence may open with a tool's name).
SENTENCE_BREAK = re.compile(r"(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)\s+(?=[A-Za-z`(])")
# (pattern, replacement), applied in order: the status codes the API's descriptions cite, as what they mean.
STATUS_WORDING = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"\b202 body of every request that starts a workflow", "What every call that starts a workflow returns"),
        (r"\breturns 20[12] with ", "returns "),
        (r"\b202 with (?:an|the) operation", "Starts an operation"),
        (r"\(202 with an operation\)", "(an operation)"),
        (r"\(202[,;] ", "("),
        (r" \((?:200|202)\)", ""),
        (r"\b202, then wait", "It starts an operation to wait on"),
        (r"\b20[01] with ", "Answers with "),
        (r"\b200 and ", ""),
        (r"\bis a 400 ", "is refused, "),
        (r"\b(?:with|is) (?:400|409) (?=[A-Z])", "with "),
        (r"\bwith 409 ", ""),
        (r"\((?:400|409) (?=[A-Z])", "("),
        (r"\b409 while ", "Refused while "),
        (r"\b404 before the first check: run cluster_drift_check", "Not found before the first check"),
        # The tool list says once, at the end of each description, how to wait (tools.OPERATION_NOTE).
        (r"[;,] (?:call operation_wait until it is terminal|wait with operation_wait)(?=[.;)])", ""),
        (r"wait with operation_wait, then ", "once it has ended, "),
        (r" \(wait with operation_wait\)", ""),
        (r"\(([^()]*); wait with operation_wait\)", r"(\1)"),
        (r"\bPATCH the instance group", "call hyperpod_update_instance_group"),
        (r"\bPATCH result: ", ""),
        (r"\bThe HTTP status of the response", "The response's status code"),
        (r"\bHTTP outcome", "outcome"),
        (r"Method and path, e\.g\. `POST /clusters/demo/hyperpod`", "The API request the call made"),
    )
)


class Vocabulary:
    """Names tools instead of REST routes: `GET /clusters` → `cluster_list_all`."""

    def __init__(self, routes: Iterable[tuple[str, str, str]]) -> None:
        """`routes`: (method, path template, tool name) of every tool."""
        self._routes = [(method, _template(path), name) for method, path, name in routes]
        self._names = [name for _, _, name in self._routes]

    def translate(self, text: str) -> str:
        return ROUTE.sub(self._tool, text)

    def for_agents(self, text: str) -> str:
        """A description for the tool list: tools for routes, meanings for status codes."""
        for pattern, replacement in STATUS_WORDING:
            text = pattern.sub(replacement, text)
        return self.translate(text)

    def next_step(self, text: str, own: str) -> str | None:
        """The last sentence of `text`, in an agent's words, that names a tool other than `own`: what to call next."""
        others = [re.escape(name) for name in self._names if name != own]
        if not others:
            return None
        naming = re.compile(r"\b(?:" + "|".join(others) + r")\b")
        sentences = [sentence for sentence in SENTENCE_BREAK.split(self.for_agents(text)) if naming.search(sentence)]
        return sentences[-1] if sentences else None

    def in_schema(self, schema: Any) -> Any:
        """A schema whose descriptions are `for_agents`."""
        if isinstance(schema, list):
            return [self.in_schema(item) for item in schema]
        if not isinstance(schema, dict):
            return schema
        return {
            key: self.for_agents(value) if key == "description" and isinstance(value, str) else self.in_schema(value)
            for key, value in schema.items()
        }

    def translate_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """An API error body whose message (and hint) name tools."""
        return {key: self.translate(value) if isinstance(value, str) else value for key, value in body.items()}

    def _tool(self, match: re.Match[str]) -> str:
        method, path = match.group(1), match.group(2).split("?", 1)[0]
        for route_method, template, name in self._routes:
            if route_method == method and template.fullmatch(path):
                return f"`{name}`"
        return match.group(0)


def _template(path: str) -> re.Pattern[str]:
    """`/clusters/{clusterTag}` matches `/clusters/demo`, `/clusters/<tag>` and `/clusters/{clusterTag}`."""
    parts = re.split(r"(\{[^}]+\})", path)
    return re.compile("".join(r"[^\s/]+" if part.startswith("{") else re.escape(part) for part in parts))
