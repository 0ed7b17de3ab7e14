"""Which of the control plane's Lambda functions sent a request, and what its role may do, for the simulations of
services that act with the caller's credentials (HyperPod's forward access sessions).

The sandbox serves every step from one process; its Lambda dispatch (`sandbox.runtime`) marks the step it runs
(`running_step`), so a request that reaches moto from that step knows its function: the step's group, whose role has
exactly the group's grants (`infra.access.steps`, collected from the steps' declarations), rendered here with the
sandbox account's values as the stack renders them with its own. The same grants the stack deploys are the ones
judged.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from controlplane.settings import SettingNotSetError, Settings, settings
from infra.access.steps import group_access, group_of
from infra.rendering import SETTING_OF_PLACEHOLDER, render_conditions, render_resources
from sandbox.aws.hyperpod.access import Caller

_STEP: ContextVar[str | None] = ContextVar("sandbox_step", default=None)


@contextmanager
def running_step(step: str) -> Iterator[None]:
    """Requests sent inside come from the function that serves `step` (a step key, e.g. `create_hyperpod_cluster`)."""
    token = _STEP.set(step)
    try:
        yield
    finally:
        _STEP.reset(token)


def step_caller(account: str) -> Caller | None:
    """The function running the current step, with its role's policy; None outside a step (a test's or a person's
    own request)."""
    step = _STEP.get()
    if step is None:
        return None
    group = group_of(step)
    deployment = settings().deployment_name
    return Caller(
        f"arn:aws:sts::{account}:assumed-role/{deployment}-steps-{group}/{deployment}-steps-{group}",
        [function_policy(group, account)],
    )


def function_policy(group: str, account: str) -> dict[str, Any]:
    """The IAM policy of the function serving a step group, its placeholders filled with the sandbox's values."""
    values = _values(account)
    statements = []
    for grant in group_access(group).grants:
        statement: dict[str, Any] = {
            "Effect": "Allow",
            "Action": list(grant.actions),
            "Resource": render_resources(grant, values),
        }
        if grant.conditions:
            statement["Condition"] = render_conditions(grant, values)
        statements.append(statement)
    return {"Version": "2012-10-17", "Statement": statements}


def _values(account: str) -> dict[str, Any]:
    """The grants' placeholders (see `controlplane.access`) as the sandbox provisions them (its settings); a value
    not provisioned (outside a running sandbox) is empty."""
    config = settings()
    machines = list(config.state_machine_arns.values())
    return {
        "partition": "aws",
        "account": account,
        "region": os.environ.get("AWS_REGION", "us-east-1"),
        "url_suffix": "amazonaws.com",
        "deployment": config.deployment_name,
        **{placeholder: _provisioned(config, setting) for placeholder, setting in SETTING_OF_PLACEHOLDER.items()},
        "state_machine_arn": machines,
        "state_machine_name": [arn.rsplit(":", 1)[-1] for arn in machines],
        "rest_api_id": "sandbox",
        "stage": "sandbox",
    }


def _provisioned(config: Settings, setting: str) -> str:
    try:
        return str(getattr(config, setting))
    except SettingNotSetError:
        return ""
