"""The tool list's schemas in as few characters as say what an agent needs (issue 30, finding 9: an agent pays for
the list on every session).

Belongs here: rewriting a resolved JSON Schema into a shorter one (`compact`, the schema the server validates calls
with) that accepts the same arguments except an explicit null for an optional field (absent says the same: the API's
default), with whole bounds as integers, an enum without the type its values already say, no `title` or `examples`,
and no description words that the name, the enum or the pattern already say; and what of it the tool list carries
(`listed`: no bounds, closed objects or flags' false defaults; the server's answer to a call outside them names
what to fix). Not here: reading
the OpenAPI document or wording (`tools`, `wording`). `$defs` would not help: the API's models repeat across tools,
not within one, and each tool's schema is a document of its own (the SDK client resolves `$ref` within it).
"""

from __future__ import annotations

import re
from typing import Any

NULL = {"type": "null"}
# Keywords that hold data, not schemas; and those under which every value is a schema, keyed by name.
DATA_KEYWORDS = ("default", "examples", "const", "enum")
NAME_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
# Words a description may add to its field's name, enum and enclosing fields and still say nothing more, as `_words`
# writes them ("its" as "it", "this" as "thi").
FILLER = frozenset(("a", "an", "and", "by", "for", "in", "it", "of", "on", "or", "the", "thi", "to", "with"))
# A pattern in words, as the API spells out a name's: "(1-40 characters: a lowercase letter first, …)".
PATTERN_IN_WORDS = re.compile(r" \(\d+-\d+ characters: [^()]*\)")
# Numeric bounds, which pydantic writes as floats (`le=100` as `100.0`).
BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
# What the server checks a call against but the tool list leaves out: sizes and closed objects.
CHECKED_ONLY = (*BOUNDS, "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")


def listed(schema: Any, names: bool = False) -> Any:
    """What the tool list carries of a compact schema: names, types, patterns, enums, defaults, `required` and
    descriptions, without bounds, `additionalProperties: false` or a flag's `default: false` (a flag left out is
    off). The server still validates each call against the whole schema and answers one outside it with what to fix."""
    if isinstance(schema, list):
        return [listed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if names:
        return {key: listed(value) for key, value in schema.items()}
    return {
        key: value if key in DATA_KEYWORDS else listed(value, key in NAME_MAPS)
        for key, value in schema.items()
        if key not in CHECKED_ONLY
        and (key, value) != ("additionalProperties", False)
        and not (key == "default" and value is False and schema.get("type") == "boolean")
    }


def compact(schema: dict[str, Any], tool: str = "") -> dict[str, Any]:
    """`schema` in fewer characters, accepting the same instances but an optional field's explicit null; the words
    of its `tool`'s name count as said (`name` of inference_get_deployment: "Deployment.")."""
    folded: dict[str, Any] = _folded(schema, said=_words(tool))
    return folded


def _folded(schema: Any, names: bool = False, said: frozenset[str] = frozenset()) -> Any:
    """Every `anyOf [X, null]` as X, whole bounds as integers, an enum without its type; without `examples` (the REST
    document keeps them), `title` (pydantic's `Instancecount` repeats the name), an empty `required`, the words that
    spell out a pattern the schema carries, or a description that only repeats the tool's or the field's name, its
    enum or the fields it sits in (`key` of `taints`: "Taint key.")."""
    if isinstance(schema, list):
        return [_folded(item, said=said) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if names:
        return {key: _folded(value, said=said | _words(key)) for key, value in schema.items()}
    schema = _nullable(schema)
    if "pattern" in schema and isinstance(schema.get("description"), str):
        schema = {**schema, "description": PATTERN_IN_WORDS.sub("", schema["description"])}
    said = said | {word for value in schema.get("enum") or () if isinstance(value, str) for word in _words(value)}
    return {
        key: value
        if key in DATA_KEYWORDS
        else _bound(value)
        if key in BOUNDS
        else _folded(value, key in NAME_MAPS, said)
        for key, value in schema.items()
        if key not in ("examples", "title")
        and (key, value) != ("required", [])
        and not (key == "type" and _typed_by_enum(schema))
        and not (key == "description" and isinstance(value, str) and _words(value) <= said | FILLER)
    }


def _words(text: str) -> frozenset[str]:
    """The words of a name or a sentence, in lower case and singular: `instanceGroups` → instance, group."""
    split = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text).lower()
    return frozenset(word.removesuffix("s") for word in re.findall(r"[a-z0-9]+", split))


def _bound(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _typed_by_enum(schema: dict[str, Any]) -> bool:
    """Whether every value of the schema's enum is of its (single) type: the enum says the type."""
    names = {str: "string", bool: "boolean", int: "integer"}
    values = schema.get("enum")
    return isinstance(values, list) and all(names.get(type(value)) == schema.get("type") for value in values)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """`{anyOf: [X, null], description}` as `{...X, description}` for an optional field (its default is absent or
    null, so leaving it out says what null says); the field's description wins over the model's."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2 or NULL not in branches:
        return schema
    if schema.get("default") is not None:
        return schema
    other = branches[1] if branches[0] == NULL else branches[0]
    if not isinstance(other, dict):
        return schema
    rest = {key: value for key, value in schema.items() if key not in ("anyOf", "default")}
    return {**{key: value for key, value in other.items() if key not in rest}, **rest}
