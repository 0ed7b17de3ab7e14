"""A small, strict IAM policy evaluator: do identity policies (within an optional permissions boundary) allow one
action on one resource, given the request context AWS presents?

It follows the IAM User Guide's evaluation logic for one account ("Policy evaluation logic"): an explicit Deny wins,
otherwise an Allow is needed in the identity policies and, when a boundary is set, in the boundary too. Actions match
case-insensitively with `*` and `?`; resources match case-sensitively with the same wildcards (`*` spans `/` and `:`).
Conditions: the string, ARN, Bool and Null operators, with `ForAllValues:`/`ForAnyValue:` and `...IfExists`
("Condition operators", "Multivalued context keys"): a key the request does not carry fails its condition, except
under `IfExists`, `Null`, `ForAllValues` and the negated operators (`StringNotEquals`…). Anything else (another
operator, a policy variable) is an error, never an Allow: the sandbox must not admit what AWS would refuse.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

JsonObject = dict[str, Any]
# The request context: each key's values (a single-valued key is a one-element tuple).
Context = Mapping[str, tuple[str, ...]]


class PolicyEvaluationError(ValueError):
    """A policy the evaluator cannot judge; the call is refused, never allowed."""


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str


@dataclass(frozen=True)
class Request:
    action: str
    resource: str
    context: Context = field(default_factory=dict)


def evaluate(policies: Sequence[JsonObject], request: Request, boundary: JsonObject | None = None) -> Decision:
    """Whether the identity `policies` (within `boundary`, when given) allow `request`."""
    identity = _verdict(policies, request)
    if identity == "Deny":
        return Decision(False, f"an explicit deny in an identity-based policy denies {request.action}")
    if boundary is not None:
        bounded = _verdict([boundary], request)
        if bounded != "Allow":
            return Decision(False, f"no permissions boundary allows the {request.action} action")
    if identity != "Allow":
        return Decision(False, f"no identity-based policy allows the {request.action} action")
    return Decision(True, "allowed")


def _verdict(policies: Iterable[JsonObject], request: Request) -> str | None:
    """`Deny` if a statement denies, else `Allow` if one allows, else None."""
    allowed = False
    for policy in policies:
        statements = policy.get("Statement", [])
        for statement in [statements] if isinstance(statements, dict) else statements:
            if not _applies(statement, request):
                continue
            if statement.get("Effect") == "Deny":
                return "Deny"
            allowed = allowed or statement.get("Effect") == "Allow"
    return "Allow" if allowed else None


def _applies(statement: JsonObject, request: Request) -> bool:
    if "Action" in statement:
        actions = any(_action_matches(pattern, request.action) for pattern in _listed(statement["Action"]))
    elif "NotAction" in statement:
        actions = not any(_action_matches(pattern, request.action) for pattern in _listed(statement["NotAction"]))
    else:
        raise PolicyEvaluationError(f"Statement without Action or NotAction: {statement}")
    if not actions:
        return False
    if "Resource" in statement:
        resources = any(_resource_matches(pattern, request.resource) for pattern in _listed(statement["Resource"]))
    elif "NotResource" in statement:
        resources = not any(_resource_matches(p, request.resource) for p in _listed(statement["NotResource"]))
    else:
        raise PolicyEvaluationError(f"Statement without Resource or NotResource: {statement}")
    return resources and all(
        _condition(operator, key, _listed(values), request.context)
        for operator, keys in (statement.get("Condition") or {}).items()
        for key, values in keys.items()
    )


def _listed(value: Any) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list | tuple) else [str(value)]


def _action_matches(pattern: str, action: str) -> bool:
    return _wildcard(pattern.lower()).fullmatch(action.lower()) is not None


def _resource_matches(pattern: str, resource: str) -> bool:
    _no_variables(pattern)
    return _wildcard(pattern).fullmatch(resource) is not None


@cache
def _wildcard(pattern: str) -> re.Pattern[str]:
    """IAM's wildcards: `*` any run of characters (`/` and `:` included), `?` one character; nothing else special."""
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern), re.DOTALL)


def _no_variables(value: str) -> None:
    if "${" in value:
        raise PolicyEvaluationError(f"Policy variables are not evaluated here: {value}")


def _equals(policy: str, value: str) -> bool:
    return policy == value


def _equals_ignore_case(policy: str, value: str) -> bool:
    return policy.lower() == value.lower()


def _like(policy: str, value: str) -> bool:
    return fnmatch.fnmatchcase(value, policy.replace("[", "[[]"))


def _arn_like(policy: str, value: str) -> bool:
    """ArnLike/ArnEquals compare the six ARN fields, each with the wildcards."""
    patterns, parts = policy.split(":", 5), value.split(":", 5)
    return len(patterns) == len(parts) == 6 and all(
        _wildcard(pattern).fullmatch(part) for pattern, part in zip(patterns, parts, strict=True)
    )


def _bool(policy: str, value: str) -> bool:
    return policy.lower() == value.lower()


# Each supported operator: how one policy value matches one context value, and whether the operator negates.
_MATCHERS = {
    "StringEquals": (_equals, False),
    "StringNotEquals": (_equals, True),
    "StringEqualsIgnoreCase": (_equals_ignore_case, False),
    "StringNotEqualsIgnoreCase": (_equals_ignore_case, True),
    "StringLike": (_like, False),
    "StringNotLike": (_like, True),
    "ArnEquals": (_arn_like, False),
    "ArnLike": (_arn_like, False),
    "ArnNotEquals": (_arn_like, True),
    "ArnNotLike": (_arn_like, True),
    "Bool": (_bool, False),
}


def _condition(operator: str, key: str, wanted: list[str], context: Context) -> bool:
    for value in wanted:
        _no_variables(value)
    qualifier, _, name = operator.rpartition(":")
    if_exists = name.endswith("IfExists")
    name = name.removesuffix("IfExists")
    present = key in context
    values = context.get(key, ())
    if name == "Null":
        if qualifier or if_exists:
            raise PolicyEvaluationError(f"Unsupported condition operator {operator}")
        return all((value.lower() == "true") == (not present) for value in wanted)
    if name not in _MATCHERS:
        raise PolicyEvaluationError(f"Unsupported condition operator {operator}")
    matcher, negated = _MATCHERS[name]

    def one(value: str) -> bool:
        hit = any(matcher(policy, value) for policy in wanted)
        return not hit if negated else hit

    if qualifier == "ForAllValues":
        return all(one(value) for value in values)
    if qualifier == "ForAnyValue":
        return any(one(value) for value in values)
    if qualifier:
        raise PolicyEvaluationError(f"Unsupported condition operator {operator}")
    if not present:
        return if_exists or negated
    if len(values) != 1:
        raise PolicyEvaluationError(f"{operator} on multivalued key {key} needs ForAllValues or ForAnyValue")
    return one(values[0])
