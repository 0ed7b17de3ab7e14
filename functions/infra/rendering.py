"""A grant's resource and condition templates filled with a deployment's values (`controlplane.access` names the
placeholders). No CDK here: the stack renders with CloudFormation tokens, the sandbox with its own account's values
(to evaluate the grants a step's function would have)."""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from controlplane.access.grant import Grant

# The placeholders naming a resource of the deployment that the functions also read from their settings
# (`controlplane.settings.Settings`), by the setting that carries it: the stack sets them from the same values it
# renders the grants with, the sandbox renders the grants from the settings it provisioned.
SETTING_OF_PLACEHOLDER = {
    "kubernetes_role_arn": "kubernetes_role_arn",
    "kubernetes_view_role_arn": "kubernetes_view_role_arn",
    "kubernetes_jobs_role_arn": "kubernetes_jobs_role_arn",
    "workload_boundary_arn": "workload_role_boundary_arn",
    "autoscaling_boundary_arn": "autoscaling_role_boundary_arn",
    "service_boundary_arn": "service_role_boundary_arn",
    "event_forwarding_role_arn": "event_forwarding_role_arn",
}


def render_resources(grant: Grant, values: Mapping[str, Any]) -> list[str]:
    return [arn for template in grant.resources for arn in _render(template, values)]


def render_conditions(grant: Grant, values: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        operator: {key: _render_value(value, values) for key, value in keys.items()}
        for operator, keys in grant.conditions.items()
    }


def _render(template: str, values: Mapping[str, Any]) -> list[str]:
    """Fill a resource template; a list value yields one resource per element."""
    fields = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    listed = [name for name in fields if isinstance(values[name], list)]
    if not listed:
        return [template.format(**values)]
    if len(listed) > 1:
        raise ValueError(f"{template}: at most one list placeholder")
    return [template.format(**{**values, listed[0]: item}) for item in values[listed[0]]]


def _render_value(value: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(value, str) and "{" in value:
        (rendered,) = _render(value, values)
        return rendered
    if isinstance(value, (list, tuple)):
        return [_render_value(item, values) for item in value]
    return value
